"""These tests play a JupyterLab front end with ipykernel 7.4 unless a test says otherwise."""

from tests.front_end import JUPYTER, front_end_fixture

as_front_end = front_end_fixture(JUPYTER)
