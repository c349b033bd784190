"""One seat of any preset as a Gymnasium environment, the other seats played by bots.

    from liarsdice.gym import LiarsDiceEnv
    env = LiarsDiceEnv(preset="perudo", players=3, dice_per_player=2, opponents="probability")

(Absolute imports only: this package is `liarsdice.gym`, not the old `gym` library.)
"""

from liarsdice.gym.env import LiarsDiceEnv

__all__ = ["LiarsDiceEnv"]
