"""huge-init: the engine's init_scale knob at x10, a course's own break."""

from diagnose.diagnosis.signatures import Finding, Signature, check, fmt, over


class HugeInit(Signature):
    needs = ("act_mean_abs", "spectral_norm")

    def vote(self, fig):
        scale = self.brk.override["init_scale"]  # its threshold follows its own magnitude
        return min(over(fig["spectral0_ratio"], scale / 2), over(fig["act0_ratio"], scale / 2))

    def findings(self, fig, header):
        ratio = fmt(fig["spectral0_ratio"])
        return [Finding(5, "spectral0_ratio", fig["spectral0_ratio"], {
            "en": f"every matrix starts {ratio}x the reference's (course deck)",
            "es": f"cada matriz empieza {ratio} veces la de referencia (baraja del curso)"})]

    def checks(self, fig, run, reference, header):
        floor = self.brk.override["init_scale"] * 0.8
        return [check("spectral0_ratio", fig["spectral0_ratio"],
                      fig["spectral0_ratio"] >= floor, f">= {floor:g}x at step 0")]
