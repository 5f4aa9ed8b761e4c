"""``python -m wearbench`` runs the command line."""

from wearbench.cli import main

main()
