"""``python -m wearbench`` runs the command line."""

from wearbench.cli import main

if __name__ == "__main__":  # spawned worker processes (dask-local, processes:N) re-import this
    main()
