"""The kinds of run: one run handler (handler.py) and a registry of run kinds (kinds.py), each a
module here: the longest game on the CPU (longest.py) or a GPU (longest_cuda.py), on one base
(longest_base.py), the loop hunt (loop_hunt.py), cycle growing (grow.py), and every deal of a
deck in rank order on the CPU (every.py) or a GPU (every_cuda.py). start.py starts, resumes and
stops runs for the command line and the library alike (settings checked once, signals);
quality.py times each strategy's runs (`bmn search-bench`)."""
