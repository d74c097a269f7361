"""The theory registry: the one place that names the theories of the project.

Each :class:`Theory` gives its ``id`` (the name of its package in :mod:`dynamics`, the prefix of its claim and
figure ids, and the name of its claims module ``verify/<id>.py``, its cross-check module
``verify/crosscheck/<id>.py``, its figures module ``figures/<id>.py`` and its notebook
``figures/demos/<id>.ipynb``), a title, a one-line summary, the import alias used for it everywhere in the
repository, and the works it reproduces, with full citations.

Everything that needs the list of theories reads it from here: ``import dynamics`` (lazy subpackages), claim and
figure discovery, the errata document's sections, the README's theory table, the warm-up, and the test suite's
parametrizations. Adding a theory is one new package in :mod:`dynamics` (with its claims and figures modules) and
one entry in :data:`THEORIES`. The numerics core, :mod:`dynamics.numerics`, is no theory: it is listed as
:data:`~dynamics.theories.CORE`.

This module is pure data: importing it imports nothing else of the project.

Examples
--------
>>> [t.id for t in THEORIES][:2]
['linear_networks', 'double_descent']
>>> theory("starvation").alias, theory("starvation").package
('gs', 'dynamics.starvation')
"""
from typing import NamedTuple, Tuple

__all__ = ["CORE", "THEORIES", "Source", "Theory", "bibtex", "markdown_table", "sources", "theory", "theory_ids"]


class Source(NamedTuple):
    """One work a theory reproduces: ``key`` is how claims cite it (``"Saxe et al. 2014"``), the rest the full
    reference (``year`` empty where the copy the project read does not give it)."""

    key: str
    authors: str
    year: str
    title: str
    venue: str

    def citation(self) -> str:
        """The full reference as one line of text."""
        year = f" ({self.year})" if self.year else ""
        return f"{self.authors}{year}. {self.title}. {self.venue}."

    @property
    def bibkey(self) -> str:
        """The key of this work in the documentation's bibliography: the first author's surname and the year
        (``"saxe2014"``), or ``"<surname>_thesis"`` for a thesis."""
        surname = self.key.split()[0].lower()
        return f"{surname}_thesis" if "(thesis)" in self.key else f"{surname}{self.year}"

    def bibtex(self) -> str:
        """The BibTeX entry of this work (``@misc``, with the venue as ``howpublished``)."""
        authors = " and ".join(a.strip() for a in self.authors.split(","))
        fields = [("author", authors), ("title", "{" + self.title + "}"), ("howpublished", self.venue)]
        if self.year:
            fields.append(("year", self.year))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        return f"@misc{{{self.bibkey},\n{body}\n}}"


class Theory(NamedTuple):
    """One body of theory: its package, its names, its sources and its optional torch layer.

    ``torch_modules`` names the package's modules that import torch (``"torch_training"`` for
    ``dynamics.<id>.torch_training``): the optional torch layer, which the package itself never imports. The
    architecture test holds this declaration to the code's imports, both ways; the API reference lists these modules
    after the package's own names."""

    id: str
    title: str
    summary: str
    alias: str
    sources: Tuple[Source, ...]
    torch_modules: Tuple[str, ...] = ()

    @property
    def package(self) -> str:
        """The dotted name of its package, ``dynamics.<id>``."""
        return f"dynamics.{self.id}"


_PEZESHKI_THESIS = Source(
    "Pezeshki (thesis)", "M. Pezeshki", "",
    "PhD thesis: Ch. 2 reviews Saxe et al. and Advani & Saxe; Chs. 4, 6 and 8 reprint the double-descent, "
    "gradient-starvation and data-balancing papers (cited by their equation numbers, 2.2.x, 4.2.x, 6.3.x)",
    "Université de Montréal and Mila")

THEORIES: Tuple[Theory, ...] = (
    Theory("linear_networks", "Linear networks (Saxe; Advani & Saxe)",
           "linear-network mode learning (Saxe) and generalization dynamics (Advani & Saxe)", "ln",
           (Source("Saxe et al. 2014", "A. M. Saxe, J. L. McClelland, S. Ganguli", "2014",
                   "Exact solutions to the nonlinear dynamics of learning in deep linear neural networks",
                   "ICLR 2014, arXiv:1312.6120"),
            Source("Advani & Saxe 2017", "M. S. Advani, A. M. Saxe", "2017",
                   "High-dimensional dynamics of generalization error in neural networks",
                   "arXiv:1710.03667; Neural Networks 132 (2020)"),
            _PEZESHKI_THESIS),
           torch_modules=("torch_training",)),
    Theory("double_descent", "Epoch-wise double descent",
           "teacher–student R/Q dynamics, epoch-wise double descent from multi-scale features", "dd",
           (Source("Pezeshki et al. 2022", "M. Pezeshki, A. Mitra, Y. Bengio, G. Lajoie", "2022",
                   "Multi-scale Feature Learning Dynamics: Insights for Double Descent", "ICML 2022, arXiv:2112.03215"),
            _PEZESHKI_THESIS),
           torch_modules=("torch_training",)),
    Theory("starvation", "Gradient starvation",
           "gradient starvation: dual dynamics, Lambert-W fixed points, spectral decoupling", "gs",
           (Source("Pezeshki et al. 2021", "M. Pezeshki, S.-O. Kaba, Y. Bengio, A. Courville, D. Precup, G. Lajoie",
                   "2021", "Gradient Starvation: A Learning Proclivity in Neural Networks",
                   "NeurIPS 2021, arXiv:2011.09468"),
            _PEZESHKI_THESIS),
           torch_modules=("torch_experiments", "torch_training")),
    Theory("and_mask", "The AND-mask",
           "the AND-mask: gradient-sign statistics, consistency, the algorithm", "am",
           (Source("Parascandolo et al. 2021", "G. Parascandolo, A. Neitz, A. Orvieto, L. Gresele, B. Schölkopf",
                   "2021", "Learning explanations that are hard to vary", "ICLR 2021, arXiv:2009.00329"),),
           torch_modules=("torch_experiments", "torch_optim", "torch_training")),
    Theory("spherical", "The spherical view of normalized networks",
           "the spherical view of normalized networks: effective learning rates, bounds, Adam variants", "sph",
           (Source("Roburin et al. 2022", "S. Roburin, Y. de Mont-Marin, A. Bursuc, R. Marlet, P. Pérez, M. Aubry",
                   "2022", "Spherical Perspective on Learning with Normalization Layers",
                   "Neurocomputing 2022, arXiv:2006.13382"),
            Source("Roburin (thesis)", "S. Roburin", "",
                   "Optimization of Deep Neural Networks: A Functional Perspective with Applications in Image "
                   "Classification (PhD thesis; Ch. 3 reprints the spherical-perspective paper)",
                   "École des Ponts ParisTech, HAL tel-03968114")),
           torch_modules=("torch_experiments", "torch_models", "torch_optim", "torch_state", "torch_training")),
    Theory("spurious", "Large learning rates, spurious correlations and data balancing",
           "large learning rates vs spurious correlations; data balancing for worst-group accuracy", "spur",
           (Source("Barsbey et al. 2025", "M. Barsbey, L. Prieto, S. Zafeiriou, T. Birdal", "2025",
                   "Large Learning Rates Simultaneously Achieve Robustness to Spurious Correlations and "
                   "Compressibility", "preprint, Imperial College London"),
            Source("Idrissi et al. 2022", "B. Y. Idrissi, M. Arjovsky, M. Pezeshki, D. Lopez-Paz", "2022",
                   "Simple data balancing achieves competitive worst-group-accuracy", "CLeaR 2022, arXiv:2110.14503"),
            _PEZESHKI_THESIS),
           torch_modules=("torch_balancing", "torch_experiments", "torch_moon_star", "torch_training")),
)

CORE = Theory("numerics", "The numerics core",
              "ODE integrators (explicit and stiff), Lambert W, normal/binomial tails, Marchenko–Pastur, damped Newton",
              "nx",
              (Source("Hairer et al. 1993", "E. Hairer, S. P. Nørsett, G. Wanner", "1993",
                      "Solving Ordinary Differential Equations I: Nonstiff Problems (2nd ed.)", "Springer"),
               Source("Shampine & Reichelt 1997", "L. F. Shampine, M. W. Reichelt", "1997", "The MATLAB ODE Suite",
                      "SIAM J. Sci. Comput. 18(1)"),
               Source("Golub & Van Loan 2013", "G. H. Golub, C. F. Van Loan", "2013", "Matrix Computations (4th ed.)",
                      "Johns Hopkins University Press")),
              torch_modules=("torch_batched", "torch_tools"))


def theory_ids() -> Tuple[str, ...]:
    """The ids of the registered theories, in the registry's order.

    Parameters
    ----------
    None

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> len(theory_ids()) == len(THEORIES)
    True
    """
    return tuple(t.id for t in THEORIES)


def theory(id: str) -> Theory:
    """The registered theory (or :data:`~dynamics.theories.CORE`) with this id.

    Parameters
    ----------
    id : str
        A theory id such as ``"starvation"``, or ``"numerics"``.

    Returns
    -------
    Theory

    Raises
    ------
    ValueError
        If no theory has this id.

    Examples
    --------
    >>> theory("and_mask").title
    'The AND-mask'
    """
    for t in THEORIES + (CORE,):
        if t.id == id:
            return t
    raise ValueError(f"id must name a registered theory, one of {', '.join(theory_ids())} (or 'numerics'), "
                     f"got {id!r}")


def sources() -> Tuple[Source, ...]:
    """Every work the registry cites, each once, in the registry's order.

    Parameters
    ----------
    None

    Returns
    -------
    tuple of Source

    Examples
    --------
    >>> [s.bibkey for s in sources()][:2]
    ['saxe2014', 'advani2017']
    """
    seen = {}
    for t in THEORIES + (CORE,):
        for s in t.sources:
            seen.setdefault(s.key, s)
    return tuple(seen.values())


def bibtex() -> str:
    """The documentation's bibliography, one BibTeX entry per work of :func:`sources`.

    Parameters
    ----------
    None

    Returns
    -------
    str

    Examples
    --------
    >>> bibtex().startswith("@misc{saxe2014,")
    True
    """
    return "\n\n".join(s.bibtex() for s in sources()) + "\n"


def markdown_table() -> str:
    """The README's theory table (theory, package, sources), generated from the registry.

    Parameters
    ----------
    None

    Returns
    -------
    str
        A Markdown table, one row per theory and one for the numerics core.

    Examples
    --------
    >>> markdown_table().splitlines()[0]
    '| theory | package | sources |'
    """
    rows = ["| theory | package | sources |", "|---|---|---|"]
    for t in THEORIES + (CORE,):
        rows.append(f"| {t.summary} | `{t.package}` | {'; '.join(s.key for s in t.sources)} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(markdown_table())
