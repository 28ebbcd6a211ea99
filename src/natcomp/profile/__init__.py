"""A compositionality profile of one Hugging Face model: ``natcomp evaluate`` and ``natcomp compare``.

A core package (no rule folder): it decides from a model's config which families the model
fits (:mod:`natcomp.profile.fit`), writes the run's config with the model as the only
model of every family it fits (:mod:`natcomp.profile.runconfig`), runs the workflow there,
and reads the families' final TABLES (files, never family code) into one profile per run,
with the papers' published values beside it (:mod:`natcomp.profile.table`).
"""
