"""The five pairs whose tiny-checkpoint scores are pinned across the inference tests."""

REFS = [
    "the cat sat on the mat",
    "please send the invoice on friday",
    "call the doctor tomorrow morning",
    "",
    "I booked a table for two at noon",
]
HYPS = [
    "the dog sat on the mat",
    "please send the invoice on monday",
    "call the doctor",
    "okay thanks",
    "I booked a table for ten at noon",
]
