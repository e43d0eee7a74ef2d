"""High card, the toy game with chance and a hidden card (see ``rules``)."""
