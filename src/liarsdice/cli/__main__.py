"""`python -m liarsdice.cli`: the `liarsdice` command."""

from . import main

if __name__ == "__main__":
    main()
