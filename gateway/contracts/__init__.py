"""Contracts: frozen, reviewable edit plans applied all or nothing."""
