"""The batch-norm statistics switch shared by the fused QAT modules (conv+bn, linear+bn)."""


class _BnStatsSwitch:
    """``update_bn_stats``/``freeze_bn_stats`` of a fused module holding its BatchNorm as
    ``self.bn``: frozen statistics stop the running mean/var from updating (the bn runs in eval
    mode) while the weights keep training."""

    def update_bn_stats(self):
        self.freeze_bn = False
        self.bn.training = True
        return self

    def freeze_bn_stats(self):
        self.freeze_bn = True
        self.bn.training = False
        return self
