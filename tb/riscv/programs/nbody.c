/* A 5-body gravitational simulation in single precision (the classic Jovian planets setup,
 * scaled to float): pairwise forces with fsqrt.s and fdiv.s, 1000 symplectic Euler steps, energy
 * before and after; positions and energies printed as bit patterns. Long dependent chains of
 * FP operations amplify any rounding difference. */
#include <math.h>

#include "testlib.h"

#define PI 3.14159265f
#define SOLAR_MASS (4.0f * PI * PI)
#define DPY 365.24f

struct body { float x, y, z, vx, vy, vz, m; };

static struct body bodies[5] = {
    {0, 0, 0, 0, 0, 0, SOLAR_MASS},
    {4.84143144e+00f, -1.16032004e+00f, -1.03622044e-01f, 1.66007664e-03f * DPY, 7.69901118e-03f * DPY,
     -6.90460016e-05f * DPY, 9.54791938e-04f * SOLAR_MASS},
    {8.34336671e+00f, 4.12479856e+00f, -4.03523417e-01f, -2.76742510e-03f * DPY, 4.99852801e-03f * DPY,
     2.30417297e-05f * DPY, 2.85885980e-04f * SOLAR_MASS},
    {1.28943695e+01f, -1.51111514e+01f, -2.23307578e-01f, 2.96460137e-03f * DPY, 2.37847173e-03f * DPY,
     -2.96589568e-05f * DPY, 4.36624404e-05f * SOLAR_MASS},
    {1.53796971e+01f, -2.59193146e+01f, 1.79258772e-01f, 2.68067772e-03f * DPY, 1.62824170e-03f * DPY,
     -9.51592254e-05f * DPY, 5.15138902e-05f * SOLAR_MASS},
};

static float energy(void) {
  float e = 0.0f;
  for (int i = 0; i < 5; i++) {
    struct body* b = &bodies[i];
    e += 0.5f * b->m * (b->vx * b->vx + b->vy * b->vy + b->vz * b->vz);
    for (int j = i + 1; j < 5; j++) {
      float dx = b->x - bodies[j].x, dy = b->y - bodies[j].y, dz = b->z - bodies[j].z;
      e -= b->m * bodies[j].m / sqrtf(dx * dx + dy * dy + dz * dz);
    }
  }
  return e;
}

static void advance(float dt) {
  for (int i = 0; i < 5; i++)
    for (int j = i + 1; j < 5; j++) {
      float dx = bodies[i].x - bodies[j].x, dy = bodies[i].y - bodies[j].y, dz = bodies[i].z - bodies[j].z;
      float d2 = dx * dx + dy * dy + dz * dz;
      float mag = dt / (d2 * sqrtf(d2));
      bodies[i].vx -= dx * bodies[j].m * mag;
      bodies[i].vy -= dy * bodies[j].m * mag;
      bodies[i].vz -= dz * bodies[j].m * mag;
      bodies[j].vx += dx * bodies[i].m * mag;
      bodies[j].vy += dy * bodies[i].m * mag;
      bodies[j].vz += dz * bodies[i].m * mag;
    }
  for (int i = 0; i < 5; i++) {
    bodies[i].x += dt * bodies[i].vx;
    bodies[i].y += dt * bodies[i].vy;
    bodies[i].z += dt * bodies[i].vz;
  }
}

int main(void) {
  float px = 0, py = 0, pz = 0;
  for (int i = 0; i < 5; i++) {
    px += bodies[i].vx * bodies[i].m;
    py += bodies[i].vy * bodies[i].m;
    pz += bodies[i].vz * bodies[i].m;
  }
  bodies[0].vx = -px / SOLAR_MASS;
  bodies[0].vy = -py / SOLAR_MASS;
  bodies[0].vz = -pz / SOLAR_MASS;
  show("energy before", f2u(energy()));
  for (int s = 0; s < 1000; s++) advance(0.01f);
  show("energy after", f2u(energy()));
  for (int i = 0; i < 5; i++) {
    printf("body %d: %08lx %08lx %08lx\n", i, (unsigned long)f2u(bodies[i].x), (unsigned long)f2u(bodies[i].y),
           (unsigned long)f2u(bodies[i].z));
    mix(f2u(bodies[i].x)); mix(f2u(bodies[i].y)); mix(f2u(bodies[i].z)); mix(f2u(bodies[i].vx));
  }
  return finish("nbody");
}
