"""What a shipped policy file holds, on the torch side: ``as_stored(policy, storage)`` puts
into every weight matrix and convolution kernel of ``policy`` (two or more dimensions) the
values the numpy actor computes with after the file stored it in ``storage`` (a name of
:data:`agents.learning.training.export.STORAGES`), so that torch's logits can be compared with an
exported numpy actor's at float32 precision."""


def as_stored(policy, storage):
    import torch
    from agents.pretrained import as_float32
    from agents.learning.training.export import STORAGES
    convert = STORAGES[storage][0]
    with torch.no_grad():
        for p in getattr(policy, "policy", policy).parameters():
            if p.dim() >= 2:
                stored = as_float32(convert({"w": p.detach().cpu().numpy().astype("float32")}))["w"]
                p.copy_(torch.from_numpy(stored))
    return policy
