"""``python -m fakekube``: the ``fakekube`` command, for a Python whose scripts folder is not on PATH."""

from fakekube.cli import main

raise SystemExit(main())
