"""Dragon Dice table companion: dice readings in, rules-exact totals and game state out."""

__version__ = "0.1.0"
