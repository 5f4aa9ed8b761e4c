"""HTML building blocks of the evaluation report: one static page, inline CSS, every text escaped."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from wearbench.questions import Item
from wearbench.runner import ResultRow, RunInfo
from wearbench.scoring import Comparison, RunScore

_CSS = """
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
h1{margin-bottom:.2em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:1em 0;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}
th{background:#f3f3f3}td{white-space:nowrap}td.l,th.l{text-align:left}td.w{white-space:normal}
img{max-width:100%;border:1px solid #eee;margin:.5em 0}
figure{margin:1em 0}figcaption,.meta,.note{color:#666;font-size:13px}
nav a{margin-right:1em}
.figs{display:flex;flex-wrap:wrap;gap:0 1em}.scroll{overflow-x:auto}
.example{border:1px solid #ddd;border-radius:6px;padding:.5em 1em;margin:1em 0}
.question{white-space:pre-wrap}
ol.options{list-style:none;padding-left:0}ol.options li{padding:2px 4px;margin:1px 0}
li.gold{background:#e6f4e6}
.tag{display:inline-block;font-size:11px;border-radius:3px;padding:0 5px;margin-left:4px;color:#fff}
.tag.gold{background:#2e7d32}.tag.right{background:#1565c0}.tag.wrong{background:#c62828}
pre.response{white-space:pre-wrap;background:#f7f7f7;padding:.5em;max-height:24em;overflow:auto;font-size:12px}
"""

_RESPONSE_CHARS = 6000


def model_label(model: str) -> str:
    """A model spec for display: a local file path is shortened to its file name.

    ``gguf:/root/.cache/m.gguf?chat_format=gemma`` → ``gguf:m.gguf?chat_format=gemma``; every
    other spec is shown as is (the full spec stays in the run store).
    """
    scheme, sep, rest = model.partition(":")
    if scheme != "gguf" or not sep:
        return model
    path, q, query = rest.partition("?")
    return f"gguf:{path.rsplit('/', 1)[-1]}{q}{query}"


def is_baseline(info: RunInfo) -> bool:
    """Whether the run is a built-in baseline (``baseline:…``): no prompt, no model, no cost."""
    return info.model.startswith("baseline:")


def p_text(p: float | None) -> str:
    """A p-value for display: ``p < 1e-6`` below one in a million (never ``p = 0``), else 2 digits."""
    if p is None or not math.isfinite(p):
        return "p n/a"
    return "p < 1e-6" if p < 1e-6 else f"p = {p:.2g}"


def run_label(tag: str, info: RunInfo) -> str:
    """Short run name for legends: ``R1 model (mode, representation[, -ablations])``.

    A baseline reads no prompt, so it is labelled ``R1 baseline:random (baseline)``.
    """
    if is_baseline(info):
        return f"{tag} {info.model} (baseline)"
    s = info.setting
    ablate = f", -{'-'.join(s.ablations)}" if s.ablations else ""
    return f"{tag} {model_label(info.model)} ({s.mode}, {s.representation}{ablate})"


def _setting(info: RunInfo) -> str:
    if is_baseline(info):
        return "baseline (no prompt)"
    s = info.setting
    return f"{s.representation}, {s.mode}" + (f", -{' -'.join(s.ablations)}" if s.ablations else "")


def _tokens(s: RunScore) -> str:
    if s.prompt_tokens_mean is None and s.completion_tokens_mean is None:
        return "–"
    return f"{_num(s.prompt_tokens_mean, ',.0f')} + {_num(s.completion_tokens_mean, ',.0f')}"


def _num(x: float | None, fmt: str = ".3f") -> str:
    return "–" if x is None or not math.isfinite(x) else format(x, fmt)


def table(header: Sequence[str], rows: Sequence[Sequence[str]], *, table_id: str = "", left: int = 1) -> str:
    """An escaped table; the first ``left`` columns are left-aligned."""
    ident = f' id="{escape(table_id)}"' if table_id else ""
    cls = [' class="l"' if i < left else "" for i in range(len(header))]
    head = "".join(f"<th{c}>{escape(h)}</th>" for c, h in zip(cls, header, strict=True))
    body = "".join(
        "<tr>" + "".join(f"<td{c}>{escape(v)}</td>" for c, v in zip(cls, row, strict=True)) + "</tr>"
        for row in rows
    )
    return (
        f'<div class="scroll"><table{ident}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    )


def leaderboard_table(runs: Sequence[tuple[str, RunInfo, RunScore]]) -> str:
    """One row per run, in the order given.

    Baselines cost nothing and read no prompt: their setting reads ``baseline (no prompt)``, and
    the cost column is left out when every run is a baseline (``–`` for baselines otherwise).
    """
    with_cost = any(not is_baseline(info) for _, info, _ in runs)
    header = [
        *("run", "model", "setting", "n", "accuracy [Wilson 95% CI]", "per-user bootstrap CI"),
        *("parse failures", "errors", "missing", "top letter share (χ² test)", "tokens/item"),
        *(["cost (USD)"] if with_cost else []),
    ]
    rows = []
    for tag, info, s in runs:
        a, pos = s.overall, s.position
        bias = (
            "–" if pos.top_letter is None else f"{pos.top_letter} {pos.top_share:.0%} ({p_text(pos.chi2_p)})"
        )
        cost = "–" if is_baseline(info) else "unknown" if s.cost_usd is None else f"{s.cost_usd:,.4f}"
        rows.append(
            [
                tag,
                model_label(info.model),
                _setting(info),
                f"{a.n}/{s.n_items}",
                f"{_num(a.value)} [{a.lo:.3f}–{a.hi:.3f}]" if a.n else "–",
                f"{_num(s.boot_lo)}–{_num(s.boot_hi)}",
                f"{s.parse_failures} ({_num(s.parse_failure_rate, '.1%')})",
                str(s.errors),
                str(len(s.missing)),
                bias,
                _tokens(s),
                *([cost] if with_cost else []),
            ]
        )
    return table(header, rows, table_id="leaderboard-table", left=3)


def comparison_table(pairs: Sequence[tuple[str, str, Comparison]]) -> str:
    """One row per compared pair of runs (B − A)."""
    header = ["A", "B", "paired items", "acc A", "acc B", "B − A", "per-user paired bootstrap 95% CI",
              "A only right", "B only right", "McNemar exact test"]  # fmt: skip
    rows = [
        [
            a,
            b,
            str(c.n),
            _num(c.acc_a),
            _num(c.acc_b),
            _num(c.diff, "+.3f"),
            f"{_num(c.ci_low, '+.3f')} to {_num(c.ci_high, '+.3f')}",
            str(c.a_only),
            str(c.b_only),
            p_text(c.mcnemar_p),
        ]
        for a, b, c in pairs
    ]
    return table(header, rows, table_id="comparison-table", left=2)


def figure(uri: str, alt: str, caption: str = "") -> str:
    """An inline image (``uri`` must be a ``data:`` URI) with an escaped caption."""
    if not uri.startswith("data:image/"):
        raise ValueError("report figures must be inline data: URIs")
    cap = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return f'<figure><img alt="{escape(alt)}" src="{uri}">{cap}</figure>'


def _verdict(row: ResultRow | None, item: Item) -> tuple[str, str]:
    if row is None:
        return "no answer (missing)", "wrong"
    if row.error is not None:
        return f"error: {row.error}", "wrong"
    if row.letter is None:
        return "unparsed", "wrong"
    ok = row.letter == item.answer
    return f"answered {row.letter} ({'right' if ok else 'wrong'})", "right" if ok else "wrong"


def example_item(item: Item, answers: Sequence[tuple[str, ResultRow | None]], series: str) -> str:
    """One example: question, options with gold and each run's pick marked, series, responses.

    Args:
        item: The item.
        answers: ``(run tag, row or None)`` per run.
        series: Already-built HTML of the series figure (or a note), inserted as is.
    """
    labels = f"{item.type} · {item.reasoning} · {item.signals} · {item.grounding} · {item.dependency}"
    if item.pair_kind:
        labels += f" · {item.pair_kind}"
    parts = [
        f'<article class="example" id="ex-{escape(item.id)}">',
        f"<h3>{escape(item.id)} <small>{escape(labels)}; user {escape(item.user_id)}</small></h3>",
        f'<p class="question">{escape(item.question)}</p><ol class="options">',
    ]
    for letter, text in sorted(item.options.items()):
        tags = ['<span class="tag gold">gold</span>'] if letter == item.answer else []
        for tag, row in answers:
            if row is not None and row.letter == letter:
                kind = "right" if letter == item.answer else "wrong"
                tags.append(f'<span class="tag {kind}">{escape(tag)}</span>')
        cls = ' class="gold"' if letter == item.answer else ""
        parts.append(f"<li{cls}><b>{escape(letter)}.</b> {escape(text)}{''.join(tags)}</li>")
    parts.append(f"</ol>{series}")
    for tag, row in answers:
        verdict, kind = _verdict(row, item)
        text = "" if row is None else row.response
        clipped = text[:_RESPONSE_CHARS] + (" […]" if len(text) > _RESPONSE_CHARS else "")
        parts.append(
            f'<details open><summary><span class="tag {kind}">{escape(tag)}</span> '
            f"{escape(verdict)}</summary>"
            f'<pre class="response">{escape(clipped) or "(empty response)"}</pre></details>'
        )
    parts.append("</article>")
    return "".join(parts)


def section(section_id: str, title: str, body: str, intro: str = "") -> str:
    """A titled section; ``intro`` is escaped text, ``body`` is HTML."""
    note = f'<p class="note">{escape(intro)}</p>' if intro else ""
    return f'<section id="{escape(section_id)}"><h2>{escape(title)}</h2>{note}{body}</section>'


def document(title: str, meta: Sequence[str], sections: Sequence[tuple[str, str, str]], css: str = "") -> str:
    """The whole page.

    Args:
        title: Page title (escaped).
        meta: Lines of generation info (escaped).
        sections: ``(id, title, html)`` per section, linked from a navigation bar.
        css: Extra style rules, appended to the page's own.
    """
    nav = " ".join(f'<a href="#{escape(i)}">{escape(t)}</a>' for i, t, _ in sections)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_CSS}{css}</style></head><body>\n"
        f"<h1>{escape(title)}</h1>"
        + "".join(f'<p class="meta">{escape(m)}</p>' for m in meta)
        + f"<nav>{nav}</nav>\n"
        + "\n".join(body for _, _, body in sections)
        + "\n</body></html>\n"
    )
