"""Where per-user work runs: one executor interface; serial, local processes or a Dask cluster.

Every executor yields results in task order, so an output's bytes do not depend on where, or on
how many workers, its tasks ran. ``map_shared`` ships one read-only object (a cohort pool, a
reference resolver) to each worker once instead of with every task.
"""

from wearbench.executors._dask import DaskExecutor
from wearbench.executors._local import EXECUTOR_SPECS, Executor, LocalExecutor, executor_from_spec

__all__ = ["EXECUTOR_SPECS", "DaskExecutor", "Executor", "LocalExecutor", "executor_from_spec"]
