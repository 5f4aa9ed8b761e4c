"""``python -m wearbench`` runs the command line."""

from wearbench.cli import entry

if __name__ == "__main__":  # spawned worker processes (dask-local, processes:N) re-import this
    entry()
