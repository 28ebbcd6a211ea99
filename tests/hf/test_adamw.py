"""natcomp.hf.training.adamw: torch's fused AdamW where the parameters' device has it."""

from __future__ import annotations

import torch

from natcomp.hf.training import adamw


def _steps(fused_groups: bool, steps: int = 5) -> tuple[list[torch.Tensor], torch.optim.Optimizer]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    groups = [
        {"params": [p for p in model.parameters() if p.ndim >= 2], "weight_decay": 0.01},
        {"params": [p for p in model.parameters() if p.ndim < 2], "weight_decay": 0.0},
    ]
    optimizer = (
        adamw(groups, lr=1e-2, betas=(0.9, 0.98))
        if fused_groups
        else torch.optim.AdamW(groups, lr=1e-2, betas=(0.9, 0.98))
    )
    inputs, targets = torch.randn(32, 8), torch.randint(0, 2, (32,))
    for _ in range(steps):
        loss = torch.nn.functional.cross_entropy(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return [parameter.detach().clone() for parameter in model.parameters()], optimizer


def test_adamw_is_fused_on_a_cpu_and_updates_as_the_loop_does():
    fused, optimizer = _steps(True)
    assert all(group["fused"] for group in optimizer.param_groups)
    looped, loop_optimizer = _steps(False)
    assert not any(group["fused"] for group in loop_optimizer.param_groups)
    for a, b in zip(fused, looped, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    # and the update did move the weights: the comparison is not of two untouched models
    torch.manual_seed(0)
    untouched = torch.nn.Linear(8, 16).weight
    assert not torch.allclose(fused[0], untouched)


def test_adamw_is_not_fused_where_torch_has_no_fused_kernel():
    weight = torch.nn.Parameter(torch.zeros(3, 3, device="meta"))
    optimizer = adamw([{"params": [weight]}], lr=1e-3)
    assert optimizer.param_groups[0]["fused"] is False
