"""The case files and benchmark suites shipped with sciml, installed as the data package ``sciml.cases_data``.

Found through :mod:`sciml.catalog` (``sciml run plate``, ``sciml bench smoke``, ``sciml cases``); no code here.
"""
