/*
 * couple.h -- tide.couple: liquids and solids acting on each other.
 *
 * The module stands above tide.liquid and tide.solid (it may include both;
 * they never include each other or this) and below output.  Plain C, no Lua;
 * the binding is lua_couple.c plus one lua_couple_<part>.c per coupling:
 *
 *   zarifi   strong two-way coupling in one SPD pressure solve (Zarifi 2017,
 *            ch. 5): clipping solid boundaries against grid cells, the N and C
 *            matrices of Eq. 5.7-5.13, the coupled projection (5.17, 5.25,
 *            5.37-5.45) and the weak / damping-only schemes of section 6.3.
 *            Files: modules/couple/zarifi*.c, clip*.c; zarifi.h.
 *   liu      penetration-free coupling of level-set liquids with solids by
 *            barriers in one Newton solve over solid positions and narrow-band
 *            level-set values (Liu et al., section 4.3, Eq. 14-23).
 *            Files: modules/couple/liu*.c, barrier*.c; liu.h.
 *   mpm      an MPM body in a FLIP liquid on one momentum grid with one
 *            pressure projection (Stomakhin et al. 2014, Sec. 4).
 *            Files: modules/couple/mpm_flip.c; mpm_flip.h.
 *
 * Conventions are those of docs/conventions.md: SI units, y up, 0-based
 * indices in C (1-based at the Lua boundary, converted in the binding).
 */
#ifndef TIDE_COUPLE_H
#define TIDE_COUPLE_H

#include "tide.h"

#endif
