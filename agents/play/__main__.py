import sys

from agents.apps.play import main

sys.exit(0 if main() is not None else 1)
