"""People's ratings (ratingrows.py, docs/ratings.md): rated tables, who an account was at each
game, each person's rating per family of presets, and what each rated game changed.

Every table made before this migration is casual (`rated` false), as is every new one unless
its host says otherwise.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMNs (SQLite does them in place): rebuilding `tables` would cascade to its seats.
    op.add_column("tables", sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("tables", sa.Column("bots_rated", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("games", sa.Column("rating_family", sa.String(32), nullable=True))
    op.add_column("games", sa.Column("rated_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "game_people",
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat_no", sa.Integer(), primary_key=True),
        sa.Column("person_id", sa.Integer(), sa.ForeignKey("people.id", ondelete="CASCADE"), nullable=False),
    )
    op.create_index("ix_game_people_person_id", "game_people", ["person_id"])
    op.create_table(
        "person_ratings",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("person_id", sa.Integer(), sa.ForeignKey("people.id", ondelete="CASCADE"), nullable=False),
        sa.Column("family", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("person_id", "family", name="uq_person_ratings_person_family"),
    )
    op.create_index("ix_person_ratings_person_id", "person_ratings", ["person_id"])
    op.create_index("ix_person_ratings_family", "person_ratings", ["family"])
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("person_id", sa.Integer(), sa.ForeignKey("people.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat_no", sa.Integer(), nullable=False),
        sa.Column("family", sa.String(32), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game_id", "person_id", name="uq_rating_changes_game_person"),
    )
    op.create_index("ix_rating_changes_game_id", "rating_changes", ["game_id"])
    op.create_index("ix_rating_changes_person_id", "rating_changes", ["person_id"])
    # Each game's start looks up the accounts' seats of its table (gamepeople.people_at).
    op.create_index("ix_person_seats_table_code", "person_seats", ["table_code"])


def downgrade() -> None:
    op.drop_index("ix_person_seats_table_code", table_name="person_seats")
    op.drop_index("ix_rating_changes_person_id", table_name="rating_changes")
    op.drop_index("ix_rating_changes_game_id", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_index("ix_person_ratings_family", table_name="person_ratings")
    op.drop_index("ix_person_ratings_person_id", table_name="person_ratings")
    op.drop_table("person_ratings")
    op.drop_index("ix_game_people_person_id", table_name="game_people")
    op.drop_table("game_people")
    # Plain DROP COLUMNs (SQLite 3.35 and later does them in place): a batch rebuild of `tables`
    # or `games` would cascade to their seats, games and steps.
    op.drop_column("games", "rated_at")
    op.drop_column("games", "rating_family")
    op.drop_column("tables", "bots_rated")
    op.drop_column("tables", "rated")
