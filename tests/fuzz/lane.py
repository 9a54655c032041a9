"""The fuzz lane's seed, case count and hypothesis settings, shared by every test under tests/fuzz/.

Runs are seeded, so CI is reproducible: the seed is printed in pytest's closing summary and
``EARSHOT_FUZZ_SEED`` changes it; ``EARSHOT_FUZZ_EXAMPLES`` changes the cases per parser
(2,000 by default), ``EARSHOT_FUZZ_CLI_EXAMPLES`` those per CLI command (2,000). A failing
case is shrunk and printed with a blob to reproduce it.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

#: The seed of every fuzz test unless ``EARSHOT_FUZZ_SEED`` says otherwise.
DEFAULT_SEED = 20261128
SEED = int(os.environ.get("EARSHOT_FUZZ_SEED", DEFAULT_SEED))
#: Cases each parser fuzz test draws (one file each). Hypothesis grows its examples over a long
#: run: 2,000 for each of the 22 parsers is about 11 minutes of CPU, 500 under 3.
EXAMPLES = int(os.environ.get("EARSHOT_FUZZ_EXAMPLES", 2000))
#: Cases each CLI command's fuzz test draws (an argument list each, run in-process: about 10 ms of
#: CPU each, so 2,000 for each of the 14 commands is about 5 minutes of CPU).
CLI_EXAMPLES = int(os.environ.get("EARSHOT_FUZZ_CLI_EXAMPLES", 2000))


#: No deadline (a busy machine is not a failure), no example database (runs depend on the seed alone).
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, print_blob=True,
                suppress_health_check=list(HealthCheck))
CLI_FUZZ = settings(FUZZ, max_examples=CLI_EXAMPLES)
