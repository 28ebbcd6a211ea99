"""The MT family: compositionality tests of machine translation (systematicity,
substitutivity and overgeneralisation on synthetic, semi-natural and natural English-Dutch
data), the NMT models it trains with fairseq, and pretrained Hugging Face systems.

Public API: :mod:`natcomp.mt.scoring` (score a system's translations of the test items);
the rules of ``workflow/rules/mt/`` call the other modules.
"""
