"""`python -m llmkit.guard`: the verdict on one message, or `--eval DIR` on a corpus."""

import sys

from llmkit.guard.evaluation import _main

sys.exit(_main())
