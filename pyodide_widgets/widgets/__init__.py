"""One module per widget; see pyodide_widgets for what each declares."""
