"""``python -m memex_core`` runs the command line."""

from memex_core.cli import main

if __name__ == "__main__":
    main()
