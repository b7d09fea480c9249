"""Presentation code reads a game's state by the names its layout declares (``K.STATE.fields``,
the records' ``K.PLAYER`` / ``K.COMPANY`` / ``K.PLAN`` / ``K.BOX`` / ``K.DATA_BLOB``), never by
offset arithmetic such as ``state[K.HANDS + seat * K.NUM_TILE_CODES + t]``: the pictures, the text
tables and labels of the adapters, and the readouts they share."""
import re
from pathlib import Path

import envs

ROOT = Path(envs.__file__).resolve().parent
GAMES = ("between_two_cities", "expancity", "kingdomino_duel", "smartphone_inc", "tiny_towns")
# an array indexed with a kernel constant in the index: state[K.X], s[b + K.O_X + q], ...
RAW_READ = re.compile(r"\b(?:state|s|self\.state|ctx\.state)\[[^\]]*\bK\.[A-Z_]")


def presentation_files():
    for game in GAMES:
        yield ROOT / "pictures" / f"{game}.py"
        yield ROOT / f"{game}.py"
        readouts = ROOT / f"{game}_readouts.py"
        if readouts.exists():
            yield readouts


def test_the_pattern_finds_raw_reads():
    found = [line for line in ("x = int(state[K.PHASE])", "y = s[b + K.O_CUBE + q]",
                               "z = state[K.HANDS + s * K.NUM_TILE_CODES: K.HANDS + (s + 1) * K.NUM_TILE_CODES]",
                               "w = int(st.hands[s, t])", "config[K.CFG_SEED] = 3") if RAW_READ.search(line)]
    assert found == ["x = int(state[K.PHASE])", "y = s[b + K.O_CUBE + q]",
                     "z = state[K.HANDS + s * K.NUM_TILE_CODES: K.HANDS + (s + 1) * K.NUM_TILE_CODES]"]


def test_presentation_reads_state_through_declared_views():
    offenders = [f"{path.relative_to(ROOT.parent)}:{n}: {line.strip()}"
                 for path in presentation_files()
                 for n, line in enumerate(path.read_text().splitlines(), 1) if RAW_READ.search(line)]
    assert not offenders, "raw state reads:\n" + "\n".join(offenders)
