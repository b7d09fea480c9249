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


def player_record(state, p, viewer=K.EVERYTHING):
    """Seat ``p``'s record as ``viewer`` sees it (a seat, ``K.TABLE`` or ``K.EVERYTHING``):
    its declared fields by name (``K.PLAYER``), of its own record or of the copy the others
    see while the constructions of a round are hidden (``K.seen_base`` decides which)."""
    st = K.STATE.fields(state)
    own = int(K.seen_base(state, p, viewer)) == int(K._player_base(p))
    return K.PLAYER.fields((st.players if own else st.shown_players)[p])


def pending_placement_text(state, seat):
    """``seat``'s placement of this round so far, before the placements are revealed
    ("placing wood -> square 5, swapping ..."), or "" when it has none under way."""
    rec = player_record(state, seat)
    res = int(rec.pending_resource)
    if res < 0:
        res = int(rec.pending_offered)
    if res < 0:
        return ""
    dest = int(rec.pending_dest)
    text = f"placing {K.RES_IDS[res]}" + ("" if dest < 0 else " -> set aside" if dest == 16 else f" -> square {dest}")
    swap = int(rec.pending_swap_resource)
    if swap >= 0:
        square = int(rec.pending_swap_square)
        text += f", Factory swap for {K.RES_IDS[swap]}" + ("" if square < 0 else f" from square {square}")
    return text


# ----------------------------------------------------------------------------- recipes
# A card's recipe is the resource pattern of the game data (kernels/data/tiny_towns.yaml,
# read by the kernel into ``K.PATTERNS``): rows top to bottom, a resource letter per cell the
# pattern needs, "." a cell it ignores.  It may be built turned or mirrored.
RECIPE_RULE = "build any rotation or mirror image of a pattern; . is any square"
RESOURCE_KEY = ", ".join(f"{code} {name}" for code, name in zip(K.RES_CODES, K.RES_IDS))


def recipe_rows(card):
    """Card ``card``'s pattern, one string per row, as the data prints it (``[".H", "BG"]``)."""
    return list(K.PATTERNS[int(card)])


def recipe_lines(card):
    """The pattern's rows spaced for the terminal (``[". H", "B G"]``)."""
    return [" ".join(row) for row in recipe_rows(card)]


def recipe_inline(card):
    """The pattern on one line, rows separated by " / " (``". H / B G"``)."""
    return " / ".join(recipe_lines(card))


def recipe_table(cards, width=78):
    """The cards' codes, names and patterns as blocks side by side, wrapped at ``width``
    characters, under a line saying how patterns are read."""
    blocks = [[f"{CARD_CODES[c]} {K.CARD_NAMES[c]}"] + recipe_lines(c) for c in cards]
    lines = [f"recipes ({RECIPE_RULE};", f"  {RESOURCE_KEY}):"]
    row = []
    for block in blocks + [None]:
        col = max(len(line) for line in block) + 3 if block else 0
        if row and (block is None or 2 + sum(w for w, _ in row) + col > width):
            height = max(len(b) for _, b in row)
            lines.extend(("  " + "".join(b[i].ljust(w) if i < len(b) else " " * w for w, b in row)).rstrip()
                         for i in range(height))
            row = []
        if block:
            row.append((col, block))
    return lines
