"""The lobby's "Play now" seekers (seekrows.py), where every server process sees them.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seekers",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("preset", sa.String(32), nullable=True),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("wait_seconds", sa.Integer(), nullable=False),
        sa.Column("level", sa.String(32), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("claim", sa.String(64), nullable=True),
        sa.Column("table_code", sa.String(16), nullable=True),
        sa.Column("seat_no", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_seekers_token_hash", "seekers", ["token_hash"], unique=True)
    op.create_index("ix_seekers_status", "seekers", ["status"])


def downgrade() -> None:
    op.drop_index("ix_seekers_status", table_name="seekers")
    op.drop_index("ix_seekers_token_hash", table_name="seekers")
    op.drop_table("seekers")
