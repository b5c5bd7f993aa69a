import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The numba cache is cardsim.cachedir.base(): the checkout's .numba_cache unless NUMBA_CACHE_DIR is
# set, the same folder `make` and the CLI use.
