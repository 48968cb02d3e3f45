"""The examples in the rules packages' docstrings stay true."""

import doctest

import companion.rules.catalogue
import companion.rules.resolution


def test_docstring_examples():
    for module in (companion.rules.catalogue, companion.rules.resolution):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
