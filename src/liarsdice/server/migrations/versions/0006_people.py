"""People's accounts (a name and an argon2id password hash), their sessions (peoplerows.py) and
the seats they took (personseats.py).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "people",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(128), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_people_name_key", "people", ["name_key"], unique=True)
    op.create_table(
        "person_sessions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("person_id", sa.Integer(), sa.ForeignKey("people.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_person_sessions_token_hash", "person_sessions", ["token_hash"], unique=True)
    op.create_index("ix_person_sessions_person_id", "person_sessions", ["person_id"])
    op.create_table(
        "person_seats",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("person_id", sa.Integer(), sa.ForeignKey("people.id", ondelete="CASCADE"), nullable=False),
        sa.Column("table_code", sa.String(16), nullable=False),
        sa.Column("seat_no", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("person_id", "table_code", "seat_no", name="uq_person_seats_seat"),
    )
    op.create_index("ix_person_seats_person_id", "person_seats", ["person_id"])


def downgrade() -> None:
    op.drop_index("ix_person_seats_person_id", table_name="person_seats")
    op.drop_table("person_seats")
    op.drop_index("ix_person_sessions_person_id", table_name="person_sessions")
    op.drop_index("ix_person_sessions_token_hash", table_name="person_sessions")
    op.drop_table("person_sessions")
    op.drop_index("ix_people_name_key", table_name="people")
    op.drop_table("people")
