"""A seat's bot_level holds "operator:NAME" and "account:NAME" with names of up to 24 characters.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # batch mode: SQLite cannot alter a column in place
    with op.batch_alter_table("seats") as batch:
        batch.alter_column("bot_level", existing_type=sa.String(32), type_=sa.String(64), existing_nullable=True)


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.alter_column("bot_level", existing_type=sa.String(64), type_=sa.String(32), existing_nullable=True)
