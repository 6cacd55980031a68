"""Search algorithms over packed states: depth-first search with a transposition table."""
