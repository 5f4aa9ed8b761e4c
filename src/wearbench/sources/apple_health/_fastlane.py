"""Heart-rate fast lane: count plain, valid HeartRate records without a Python call per record.

Heart-rate samples are most of an export's records, and the daily loader only needs to know
how many valid ones there are (workouts without a heart-rate statistic get theirs from a later
pass). A Python handler call per element costs about as much as a whole ``iterparse`` pass,
so without ``keep_all`` (:class:`~wearbench.sources.apple_health._collect.Collector`), before
a chunk goes to expat, the lines holding such records are found with a compiled regular
expression, counted, and cut down to their line breaks. Line numbers, and the columns of
every other line, are unchanged, so expat's error positions stay right.

The source attributes (``sourceName`` … ``unit``) of an export's heart-rate records repeat
verbatim; each distinct text is checked once (well-formed UTF-8 without control characters,
``<`` or non-characters; only the predefined entities; Apple's attribute order) and then
matched as a literal, which keeps the scan several times faster than expat. A record is taken
only when it is certain to be a well-formed record that the collector would accept and do
nothing else with: the previous line ends with ``>``, a known source text, ``startDate`` a
``YYYY-MM-DD hh:mm:ss ±hhmm`` time on a real date (the pattern checks it; 29 February is left
to the slow path), ``endDate`` the same text, ``value`` a plain decimal (so finite and
≥ 0), then ``/>`` or one ``HKMetadataKeyHeartRateMotionContext`` entry and ``</Record>``, and
nothing else on its lines. Every other record goes through expat and the collector as before.
The lane is off for a chunk that may be inside a ``<Correlation>`` (whose child records are
skipped), and from the first comment, CDATA section, processing instruction or end of the
root element in the document body on. For a well-formed export the collector's results are
the same with and without the lane.
"""

from __future__ import annotations

import re

#: Distinct source texts learnt per export (records of further sources take the slow path).
MAX_SOURCES = 16
_OPEN = b'<Record type="HKQuantityTypeIdentifierHeartRate"'
_TEXT = rb'"[^"<\x00-\x1f]*"'
_SOURCE = re.compile(
    rb" sourceName=" + _TEXT + rb"(?: sourceVersion=" + _TEXT + rb")?(?: device=" + _TEXT + rb")?"
    rb" unit=" + _TEXT
)
_BAD_ENTITY = re.compile(rb"&(?!(?:lt|gt|amp|quot|apos);)")
#: A real date (Feb 29 is left to the slow path): what ``date.fromisoformat`` accepts.
_DATE = (
    rb"(?!0000)\d{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)"
    rb"|(?:0[13578]|1[02])-31)"
)
_TIME = rb'"' + _DATE + rb' \d{2}:\d{2}:\d{2} [+-]\d{4}"'
#: Comment, CDATA, processing instruction, end of root (lane off) or a correlation (chunk skipped).
_MARK = re.compile(rb"<(?:!|\?|/HealthData|Correlation)")
_STOP = re.compile(rb"<(?:!|\?|/HealthData)")
_PAIRS = ((b"<!--", b"-->"), (b"<![CDATA[", b"]]>"), (b"<?", b"?>"))
_OVERLAP = 16


def _patterns(sources: list[bytes]) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """(one-line ``<Record .../>``, three-line record with a motion-context entry) patterns."""
    heads = b"|".join(re.escape(s) for s in sorted(sources, key=len, reverse=True))
    record = (
        rb"\n(?:(?<=>\n)|(?<=>\r\n))[ \t]*" + re.escape(_OPEN) + rb"(?:" + heads + rb")"
        rb"(?: creationDate=\"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}\")?"
        rb" startDate=(" + _TIME + rb") endDate=\1 value=\"\d{1,15}(?:\.\d{1,15})?\""
    )
    one_line = re.compile(record + rb"[ \t]*/>[ \t]*(?=\r?\n)")
    with_entry = re.compile(
        record + rb">\r?\n[ \t]*<MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\""
        rb" value=\"\d\"[ \t]*/>\r?\n[ \t]*</Record>[ \t]*(?=\r?\n)"
    )
    return one_line, with_entry


def _valid_source(text: bytes) -> bool:
    if not _SOURCE.fullmatch(text) or _BAD_ENTITY.search(text):
        return False
    try:
        decoded = text.decode("utf-8")  # well-formed UTF-8, no surrogates
    except UnicodeDecodeError:
        return False
    return "\ufffe" not in decoded and "\uffff" not in decoded


class HeartRateLane:
    """Chunk filter for :func:`~wearbench.sources.apple_health._parse.stream` (see module doc).

    Attributes:
        count: Heart-rate records taken so far (each a valid sample).
        off: True once the lane stopped for the rest of the export.
    """

    def __init__(self) -> None:
        """Start with nothing counted and no source learnt."""
        self.count = 0
        self.off = False
        self._tail = b""
        self._correlation = False
        self._open = False
        self._sources: list[bytes] = []
        self._seen_sources: set[bytes] = set()
        self._pattern: tuple[re.Pattern[bytes], re.Pattern[bytes]] | None = None

    def __call__(self, chunk: bytes, *, active: bool, in_correlation: bool) -> bytes:
        """``chunk`` with its plain heart-rate records cut down to line breaks, or unchanged.

        Args:
            chunk: The next bytes for expat.
            active: False until expat has seen the root element's start (the prolog and DTD
                may hold comments); such chunks are only watched for a comment, CDATA section
                or processing instruction still open at their end, which turns the lane off.
            in_correlation: Expat is inside a ``<Correlation>`` after the previous chunk.
        """
        edge = self._tail + chunk[:_OVERLAP]
        self._tail = chunk[-_OVERLAP:]
        had_correlation, self._correlation = self._correlation, False
        if self.off:
            return chunk
        if not active:
            seen = edge + chunk[_OVERLAP:]
            last = [(seen.rfind(a), seen.rfind(b)) for a, b in _PAIRS]
            if any(opened > closed for opened, closed in last):
                self._open = True
            elif any(closed >= 0 for _, closed in last):
                self._open = False
            return chunk
        if self._open:  # the root started inside a comment, CDATA or PI: never expected
            self.off = True
            return chunk
        if _MARK.search(edge):
            self.off = bool(_STOP.search(edge))
            self._correlation = True
            return chunk
        mark = _MARK.search(chunk)
        if mark is not None:
            if mark.group() != b"<Correlation" or _STOP.search(chunk):
                self.off = True
            self._correlation = True
            if mark.group() != b"</HealthData" or had_correlation:
                return chunk
            # the export's last chunk: take the records before the root's end
            return self._take(chunk[: mark.start()], in_correlation) + chunk[mark.start() :]
        if had_correlation:
            return chunk
        return self._take(chunk, in_correlation)

    def _take(self, chunk: bytes, in_correlation: bool) -> bytes:
        """Count and cut the plain heart-rate records of ``chunk`` (none inside a correlation)."""
        if in_correlation or self._learn(chunk) or self._pattern is None:
            return chunk
        # literal replacements (no group references) keep ``subn`` in C; a CRLF inside a
        # three-line record becomes LF, which is still one line break
        one_line, with_entry = self._pattern
        out, n = one_line.subn(b"\n", chunk)
        if b"HeartRateMotionContext" in chunk:
            out, n3 = with_entry.subn(b"\n\n\n", out)
            n += n3
        self.count += n
        return out

    def _learn(self, chunk: bytes) -> bool:
        """Learn the source texts of the chunk's first heart-rate records; True if none."""
        pos = chunk.find(_OPEN)
        if pos < 0:
            return True
        for _ in range(8):
            if pos < 0 or len(self._sources) >= MAX_SOURCES or len(self._seen_sources) >= 64 * MAX_SOURCES:
                break
            start = pos + len(_OPEN)
            eol = chunk.find(b"\n", start)
            cut = chunk.find(b" creationDate=", start, eol)
            cut = chunk.find(b" startDate=", start, eol) if cut < 0 else cut
            source = chunk[start:cut]
            if cut > 0 and source not in self._seen_sources:
                self._seen_sources.add(source)
                if _valid_source(source):
                    self._sources.append(source)
                    self._pattern = _patterns(self._sources)
            pos = chunk.find(_OPEN, max(eol, start))
        return False
