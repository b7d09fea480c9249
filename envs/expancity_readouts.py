"""Expancity: the contracts a seat put under the deck (shared by the text table and the picture).

Both presentations import this module, which imports only the kernel: the adapter
(``envs/expancity.py``) reaches its picture (``envs/pictures/expancity.py``) only inside
``picture()``, and the picture never imports the adapter, so the two have no import cycle
(``tests/test_envs_imports.py``).
"""
from kernels import expancity as K


def bottom_cards(state, seat):
    """The contracts ``seat`` put under the deck, in deck order (only it knows which)."""
    st = K.STATE.fields(state)
    head = int(st.queue_head)
    return [int(st.queue[(head + i) % K.NUM_CONTRACTS]) for i in range(int(st.queue_len))
            if st.queue_owner[(head + i) % K.NUM_CONTRACTS] == seat]
