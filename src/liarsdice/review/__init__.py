"""The best bot's review of play: a hint at a decision (`judge`) and the analysis of a whole game
record (`analyse`), every move valued in expected dice and marked by how much it lost.

A shell package above bots/ and record.py, below cli/, terminal/ and server/. docs/analysis.md
says how each kind of round is valued, the thresholds of the marks and the accuracy's formula.
"""

from .analysis import ANALYSIS_VERSION, Analysis, AnalysisStopped, Decision, MoveValue, analyse, player_steps
from .judge import Judge, holds, judge
from .judgement import ESTIMATE, EXACT, UNIT, JudgedMove, Judgement, move_text
from .marks import ACCURACY_SCALE, SYMBOLS, THRESHOLDS, accuracy, mark, move_accuracy
from .standing import Standing
from .summary import SeatSummary

__all__ = [
    "ACCURACY_SCALE",
    "ANALYSIS_VERSION",
    "ESTIMATE",
    "EXACT",
    "SYMBOLS",
    "THRESHOLDS",
    "UNIT",
    "Analysis",
    "AnalysisStopped",
    "Decision",
    "Judge",
    "JudgedMove",
    "Judgement",
    "MoveValue",
    "SeatSummary",
    "Standing",
    "accuracy",
    "analyse",
    "holds",
    "judge",
    "mark",
    "move_accuracy",
    "move_text",
    "player_steps",
]
