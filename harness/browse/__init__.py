"""The results browser (``lighthouse view``): a results folder's report and episodes as
pages, served or written as static files; reads the folder only."""
