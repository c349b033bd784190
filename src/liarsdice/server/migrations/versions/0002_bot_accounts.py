"""Bot accounts: a name and the hash of a secret token.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_accounts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("token_hash", name="uq_bot_accounts_token_hash"),
    )
    op.create_index("ix_bot_accounts_name", "bot_accounts", ["name"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_bot_accounts_name", table_name="bot_accounts")
    op.drop_table("bot_accounts")
