"""Tiny Towns: the two-letter card codes and a seat's placement under way (shared by the text
table and the picture).

Both presentations import this module, which imports only the kernel: the adapter
(``envs/tiny_towns.py``) reaches its picture (``envs/pictures/tiny_towns.py``) only inside
``picture()``, and the picture never imports the adapter, so the two have no import cycle
(``tests/test_envs_imports.py``).
"""
from kernels import tiny_towns as K

CODES = {
    "Cottage": "Co", "Farm": "Fa", "Granary": "Gr", "Greenhouse": "Gh", "Orchard": "Or",
    "Well": "We", "Fountain": "Fo", "Millstone": "Mi", "Shed": "Sh", "Chapel": "Ch", "Abbey": "Ab",
    "Cloister": "Cl", "Temple": "Te", "Tavern": "Ta", "Almshouse": "Al", "Inn": "In",
    "Feast Hall": "FH", "Theater": "Th", "Bakery": "Ba", "Market": "Ma", "Tailor": "Tl",
    "Factory": "Fc", "Bank": "Bk", "Trading Post": "TP", "Warehouse": "Wh",
    "Architect's Guild": "AG", "Archive of the Second Age": "AR", "Barrett Castle": "BC",
    "Cathedral of Caterina": "CC", "Fort Ironweed": "FI", "Grand Mausoleum of the Rodina": "GM",
    "Grove University": "GU", "Mandras Palace": "MP", "Obelisk of the Crescent": "OC",
    "Opaleye's Watch": "OW", "Shrine of the Elder Tree": "SE", "Silva Forum": "SF",
    "The Sky Baths": "SB", "The Starloom": "SL", "Statue of the Bondmaker": "SM",
}
CARD_CODES = [CODES[n] for n in K.CARD_NAMES]


def pending_placement_text(state, seat):
    """``seat``'s placement of this round so far, before the placements are revealed
    ("placing wood -> square 5, swapping ..."), or "" when it has none under way."""
    b = K._player_base(seat)
    res = int(state[b + K.O_PEND_RESOURCE])
    if res < 0:
        res = int(state[b + K.O_PEND_OFFERED])
    if res < 0:
        return ""
    dest = int(state[b + K.O_PEND_DEST])
    text = f"placing {K.RES_IDS[res]}" + ("" if dest < 0 else " -> set aside" if dest == 16 else f" -> square {dest}")
    swap = int(state[b + K.O_PEND_SWAP_RES])
    if swap >= 0:
        square = int(state[b + K.O_PEND_SWAP_SQUARE])
        text += f", Factory swap for {K.RES_IDS[swap]}" + ("" if square < 0 else f" from square {square}")
    return text
