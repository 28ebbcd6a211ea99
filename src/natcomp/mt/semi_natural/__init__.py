"""Semi-natural MT test data: parsing the corpus, Double-DOP fragments, and sentences
generated from the fragments (see ``docs/mt.md``)."""
