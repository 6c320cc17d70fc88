"""Looking at episodes: a terminal stepper and a self-contained HTML viewer."""
