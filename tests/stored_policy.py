"""What a shipped policy file holds, on the torch side: ``as_stored(policy)`` rounds every
weight matrix and convolution kernel of ``policy`` (two or more dimensions) to float16 in
place, as :func:`agents.pretrained.export.half_precision` stores them, so that torch's logits
can be compared with an exported numpy actor's at float32 precision."""


def as_stored(policy):
    import torch
    with torch.no_grad():
        for p in getattr(policy, "policy", policy).parameters():
            if p.dim() >= 2:
                p.copy_(p.half().float())
    return policy
