"""The bot ladder: the games it started, and each entrant's rating per preset.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ladder_games",
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("entrants", sa.JSON(), nullable=False),
        sa.Column("rated_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_ladder_games_preset", "ladder_games", ["preset"])
    op.create_table(
        "ladder_ratings",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("entrant", sa.String(80), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("preset", "entrant", name="uq_ladder_ratings_preset_entrant"),
    )


def downgrade() -> None:
    op.drop_table("ladder_ratings")
    op.drop_index("ix_ladder_games_preset", table_name="ladder_games")
    op.drop_table("ladder_games")
