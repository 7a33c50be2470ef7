"""The record store (store/, SQLite) and the published record games shipped as package data
(published.py and the CSVs), with the reports built from them (report.py)."""
