/* word2vec's skip-gram negative-sampling loop, one pair at a time, for the quality experiment of
 * benchmarks/sgns_quality.py (not part of the book's library).
 *
 * It follows gensim's w2v_fast_sentence_sg_neg (gensim/models/word2vec_inner.pyx) and word2vec.c: for each
 * (centre, context) pair in corpus order, the context word's input row x meets the centre's output row
 * (label 1) and the negatives' output rows (label 0; a negative equal to the centre is skipped); each
 * output row is updated at once, y += g·x with g = lr·weight·(label − σ(x·y)), and x after all targets.
 * The exact logistic function is used. The pairs, their learning rates and the negatives come from the
 * caller (lib.sgns.epoch_blocks and the book's alias table), so that this loop and the book's blocked,
 * summed update can be run on the same random draws.
 *
 * Blocks as in lib.sgns.EpochBlocks: span (G, S), targets (G, T) (B centres, then N negatives), band
 * (G, B, 2W + 1). Negatives: either `negatives` (n_pairs, K), K of them per pair at weight 1, in the order
 * the pairs are visited here (word2vec), or, when `negatives` is NULL, the N negatives of the pair's block
 * at weight K/N each (the book's negatives, taken one pair at a time).
 * Compile: cc -O2 -shared -fPIC -o word2vec_loop.so word2vec_loop.c -lm
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void train_blocks(float *w_in, float *w_out, int D, int G, int B, int S, int T, int K,
                  const int64_t *span, const int64_t *targets, const float *band, const int64_t *negatives,
                  float *work) {
  const int width = S - B + 1; /* 2W + 1 */
  const int n_neg = negatives ? K : T - B;
  const float neg_weight = negatives ? 1.0f : (float)K / (float)(T - B);
  int64_t pair = 0;
  for (int g = 0; g < G; g++) {
    for (int i = 0; i < B; i++) {
      const int64_t centre = targets[(int64_t)g * T + i];
      for (int c = 0; c < width; c++) {
        const float lr = band[((int64_t)g * B + i) * width + c];
        if (lr == 0.0f) continue;
        float *x = w_in + span[(int64_t)g * S + i + c] * D;
        memset(work, 0, (size_t)D * sizeof(float));
        for (int d = 0; d <= n_neg; d++) {
          int64_t t = centre;
          float label = 1.0f, weight = 1.0f;
          if (d > 0) {
            t = negatives ? negatives[pair * K + d - 1] : targets[(int64_t)g * T + B + d - 1];
            if (t == centre) continue;
            label = 0.0f;
            weight = neg_weight;
          }
          float *y = w_out + t * D;
          float s = 0.0f;
          for (int a = 0; a < D; a++) s += x[a] * y[a];
          const float step = lr * weight * (label - 1.0f / (1.0f + expf(-s)));
          for (int a = 0; a < D; a++) work[a] += step * y[a];
          for (int a = 0; a < D; a++) y[a] += step * x[a];
        }
        for (int a = 0; a < D; a++) x[a] += work[a];
        pair++;
      }
    }
  }
}
