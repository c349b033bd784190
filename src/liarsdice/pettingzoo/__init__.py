"""Every preset of `liarsdice.rules` as a PettingZoo AEC environment.

    from liarsdice.pettingzoo import env
    e = env(preset="soar", players=3, dice_per_player=2, render_mode="ansi")

`docs/research.md` describes the spaces, the rewards and the options of the environment.
"""

from .env import LiarsDiceAEC, env, raw_env

__all__ = ["LiarsDiceAEC", "env", "raw_env"]
