"""Analysis of the games, built on the rules engine: exact house edges and fast simulation.

- :mod:`~controller.analysis.edges`: the exact edge of every bet (Markov chains over the
  engine's reachable states, solved in fractions by :mod:`~controller.analysis.markov`).
- :mod:`~controller.analysis.simulate`: millions of seeded random rolls with a set of bets,
  through a transition table compiled from the engine (:mod:`~controller.analysis.compile`)
  and played with numpy (:mod:`~controller.analysis.runner`); measured edge with a 95%
  interval (:mod:`~controller.analysis.stats`).

No payout is written here: every number comes from :func:`controller.rules.apply`.
"""
