import sys

from nardy.cli import main

sys.exit(main())
