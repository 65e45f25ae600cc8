"""Classical solvers that make the FNO datasets of Li et al., "Fourier Neural Operator for Parametric PDEs"
(ICLR 2021), the random fields they start from, and the flows PINN cases start from and are checked against.

- ``grf``: Gaussian random fields, periodic (FFT) and Neumann (cosine series), and the Darcy threshold;
- ``darcy``: :math:`-\\nabla\\cdot(a\\nabla u) = f` on the unit square, five-point finite differences;
- ``burgers``: 1D viscous Burgers, pseudo-spectral with ETDRK4; the Cole–Hopf exact solution;
- ``vorticity``: 2D Navier–Stokes in vorticity form on the torus, pseudo-spectral Crank–Nicolson/Heun;
- ``lbm``: the flow around a cylinder in a channel (the DFG benchmarks), lattice Boltzmann (D2Q9, TRT, Bouzidi's
  bounce-back): the developed flow a PINN case starts from (``equation.start``) and its forces in time.

Each FNO data module exposes ``generate(n_samples, resolution, seed, progress=None, **params) -> dict`` of NumPy
arrays (float64), vectorised over samples (batch axis first). Sample ``i`` depends on ``(seed, i)`` and the
parameters only. ``progress(k)`` is called with the number of samples just finished (an increment, as
``tqdm.update`` takes). ``r`` is the subsampling factor from the solver's grid to ``resolution``.
"""
