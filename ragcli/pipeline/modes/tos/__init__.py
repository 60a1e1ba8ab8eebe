"""tos: the FAQ-first support waterfall. mode.py is the tos mode; bands.py its score
bands (its decisions); details.py the typed `tos_details` block and the tos outcomes."""
