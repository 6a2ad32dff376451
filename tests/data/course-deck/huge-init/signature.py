"""huge-init: the engine's init_scale knob at x10, a course's own break."""

from diagnose.diagnosis.signatures import Signature, check, over, said


class HugeInit(Signature):
    needs = ("act_mean_abs", "spectral_norm")

    def vote(self, fig):
        scale = self.brk.override["init_scale"]  # its threshold follows its own magnitude
        return min(over(fig["spectral0_ratio"], scale / 2), over(fig["act0_ratio"], scale / 2))

    def findings(self, fig, header):
        # English here; the other languages in this folder's catalog, locale/ (tools/words.py)
        return [said(5, "spectral0_ratio", fig,
                     "every matrix starts {spectral0_ratio}x the reference's (course deck)")]

    def checks(self, fig, run, reference, header):
        floor = self.brk.override["init_scale"] * 0.8
        return [check("spectral0_ratio", fig["spectral0_ratio"],
                      fig["spectral0_ratio"] >= floor, f">= {floor:g}x at step 0")]
