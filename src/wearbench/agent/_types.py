"""Plain types of the sandbox: limits, one call's result, the error, default pre-imports."""

from __future__ import annotations

from dataclasses import dataclass

from wearbench._errors import WearbenchError

DEFAULT_PREIMPORTS: tuple[str, ...] = (
    "numpy",
    "pandas",
    "math",
    "statistics",
    "json",
    "datetime",
    "collections",
    "itertools",
    "functools",
    "re",
    "random",
    "decimal",
    "fractions",
    "operator",
    "heapq",
    "bisect",
    "calendar",
    "textwrap",
    "string",
    "dataclasses",
    "typing",
    "pprint",
)


class SandboxError(WearbenchError):
    """The sandbox worker could not be started or spoke garbage."""


@dataclass(frozen=True)
class SandboxLimits:
    """Per-call and per-worker limits.

    Attributes:
        cpu_s: CPU time per call, seconds (kernel ``RLIMIT_CPU``, re-armed each call).
        memory_mb: Address space of the worker, MiB (``RLIMIT_AS``; includes ~370 MiB for
            the interpreter, numpy and pandas).
        wall_s: Wall time per call, seconds; past it the worker's process group is killed.
        max_output_bytes: Bytes of stdout, of stderr and of error text kept per call.
        max_processes: ``RLIMIT_NPROC`` (processes + threads of the worker's uid).
        max_file_mb: Largest file the worker may write, MiB (``RLIMIT_FSIZE``).
        max_open_files: Open file descriptors (``RLIMIT_NOFILE``).
    """

    cpu_s: int = 10
    memory_mb: int = 1024
    wall_s: float = 30.0
    max_output_bytes: int = 20_000
    max_processes: int = 64
    max_file_mb: int = 64
    max_open_files: int = 64

    def __post_init__(self) -> None:
        for name in ("cpu_s", "memory_mb", "wall_s", "max_output_bytes", "max_processes"):
            if getattr(self, name) <= 0:
                raise ValueError(f"SandboxLimits.{name} must be positive, got {getattr(self, name)!r}")


@dataclass(frozen=True)
class ExecResult:
    """What one :meth:`Sandbox.run` produced.

    Attributes:
        stdout: Captured standard output (first ``max_output_bytes``).
        stderr: Captured standard error (first ``max_output_bytes``).
        error: Traceback of an exception the code raised, or why the worker died; None if fine.
        timed_out: The call exceeded ``wall_s``.
        killed: Why the worker died during the call (``"wall timeout"``, ``"cpu limit"``,
            ``"memory limit"``, ``"crashed (SIGSEGV)"`` …); None if it survived.
        truncated: stdout or stderr was cut at ``max_output_bytes``.
        restarted: A fresh worker was started for this call (earlier state was lost).
        memory_error: The code raised ``MemoryError`` (the ``memory_mb`` limit); worker survived.
        duration_s: Wall time of the call, seconds.
    """

    stdout: str = ""
    stderr: str = ""
    error: str | None = None
    timed_out: bool = False
    killed: str | None = None
    truncated: bool = False
    restarted: bool = False
    memory_error: bool = False
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the code ran to completion without an exception."""
        return self.error is None and self.killed is None

    def to_text(self) -> str:
        """Plain-text report for a model: output, error and notes on limits and lost state."""
        parts: list[str] = []
        if self.restarted:
            parts.append("[note: the sandbox was restarted before this call; earlier variables are lost]")
        if self.stdout:
            parts.append(self.stdout)
        if self.stderr:
            parts.append(f"[stderr]\n{self.stderr}")
        if self.truncated:
            parts.append("[output truncated]")
        if self.memory_error:
            parts.append("[memory limit reached]")
        if self.error:
            parts.append(f"[error]\n{self.error}")
        if self.killed:
            parts.append(
                f"[sandbox killed: {self.killed}; all Python state was lost, a fresh worker with `df` "
                "will run the next call]"
            )
        return "\n".join(parts) if parts else "[no output]"
