"""Search algorithms over packed states.

``dfs``: the complete classifier (depth-first search with a transposition
table); ``ehc``: enforced hill-climbing, a fast first try at a solution;
``astar``: A* and weighted A* for shortest solutions and best scores.
The names below are what ``--heuristic`` and ``--algorithm`` accept; they
live here, away from the kernels, so the command line can list them without
importing numba.
"""

# the order is the kernel's code (state.P_HEUR); see dfs.py for each one
HEURISTIC_NAMES = ("static", "lookahead", "fewest-hidden", "foundation-first", "stock-last", "weighted")
DEFAULT_HEURISTIC = "lookahead"

# "portfolio": the engines of search/engine.py (PORTFOLIO) in rounds of doubling
# budgets -- the arrangement-free engine, restarts, beam search, hill-climbing,
# relaxations, the complete depth-first search.  "climb": the first sessions' phases (weighted
# A*, hill-climbing, depth-first search with an unproved cut, then the complete
# search with what is left).  "dfs": the complete depth-first search only.
# "astar": A*, a minimal solution under a cost model (search/astar.py);
# "wastar": weighted A*, a solution within a factor --weight of minimal.
# "rollout": the sampling player as a solution finder (search/engine.py, Rollout): games
# with seeds 0, 1, 2..., a won game is the solution; solutions only.
# "beam": the portfolio's beam searches alone (search/beam.py), every game, all widths;
# solutions only.
ALGORITHM_NAMES = ("portfolio", "climb", "dfs", "astar", "wastar", "rollout", "beam")
ASTAR_ALGORITHMS = ("astar", "wastar")
COST_NAMES = ("tokens", "moves", "score")
DEFAULT_ALGORITHM = "portfolio"
