#!/usr/bin/env python3
# A complete bot on the `uttt` package (python/README.md): the arena's own rules.
# Make it better by editing choose_move; run_bot does the protocol.
import random
import uttt


def choose_move(position, request):
    # position: the game so far (uttt.Position); request: the go line (time, nodes…)
    return random.choice(position.legal_moves())


uttt.run_bot(choose_move, name="PyStarterUttt", author="your name")
