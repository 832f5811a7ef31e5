"""The real-code evaluation corpus: TensorFlow code of several eras the linter was not tuned on.

Two kinds of unit (a unit is one package or one repository, never split):
PyPI units are downloaded at pinned versions into a cache directory and their
``.py`` files extracted, as ``scripts/corpus.py`` does; GitHub units are
snapshots of repositories at recorded commits that the user provides in a
local directory (``<github-dir>/<unit name>/``), e.g. extracted from a clone
with ``import-git``.  Nothing here imports TensorFlow, and nothing but the
PyPI download touches the network.  The code itself is never committed; see
``quality/CORPUS.md`` for the sources, the split and how the recall labels
were made.

    python scripts/realcode.py fetch                  # download and extract the PyPI units
    python scripts/realcode.py import-git NAME GITDIR # extract a GitHub unit at its commit
    python scripts/realcode.py list --split heldout   # the corpus files of a split, one a line
    python scripts/realcode.py table                  # the units: files, era, split (CSV)
    python scripts/realcode.py check                  # every unit present, the split valid?

Common options: ``--root`` (default ``$TFLINT_REALCODE`` or
``~/.cache/tflint-effective-realcode``) holds the PyPI units, ``--github-dir``
(default: the same directory) holds the GitHub units.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

DEFAULT_ROOT = Path(os.environ.get("TFLINT_REALCODE", Path.home() / ".cache" / "tflint-effective-realcode"))


@dataclass(frozen=True)
class Unit:
    name: str        # directory name under the root (GitHub: owner+repo)
    source: str      # "pypi" or "github"
    version: str     # PyPI version, or the GitHub repository owner/name
    commit: str      # GitHub commit ("" for PyPI)
    era: str         # tf1 / tf2 / mixed (judged by reading the code)
    python2: str     # yes / no / some (files that only parse as Python 2)
    archive: str = "wheel"   # PyPI: "wheel" or "sdist" (the distribution that was pinned)
    notebooks: bool = False  # GitHub: also each .ipynb, as ``<path>.ipynb.py`` holding what the linter sees


UNITS = [
    # --- PyPI, TF1 graph-mode era ---
    Unit("tensor2tensor", "pypi", "1.15.7", "", "tf1", "no"),
    Unit("tflearn", "pypi", "0.5.0", "", "tf1", "no", "sdist"),
    Unit("tensorpack", "pypi", "0.11", "", "tf1", "no"),
    Unit("dm-sonnet", "pypi", "1.36", "", "tf1", "no"),
    Unit("trfl", "pypi", "1.2.0", "", "tf1", "no"),
    Unit("stable-baselines", "pypi", "2.10.2", "", "tf1", "no"),
    Unit("edward", "pypi", "1.3.5", "", "tf1", "no", "sdist"),
    Unit("gpflow", "pypi", "1.5.1", "", "tf1", "no"),
    Unit("tensorlayer", "pypi", "1.11.1", "", "tf1", "no"),
    Unit("magenta", "pypi", "1.3.1", "", "tf1", "no"),
    Unit("dopamine-rl", "pypi", "2.0.5", "", "tf1", "no", "sdist"),
    Unit("lucid", "pypi", "0.3.10", "", "tf1", "no"),
    # --- PyPI, TF2 ---
    Unit("tf-agents", "pypi", "0.19.0", "", "tf2", "no"),
    Unit("tensorflow-recommenders", "pypi", "0.7.3", "", "tf2", "no"),
    Unit("tensorflow-model-optimization", "pypi", "0.8.0", "", "tf2", "no"),
    Unit("tensorflow-gnn", "pypi", "1.0.3", "", "tf2", "no"),
    Unit("tensorflow-ranking", "pypi", "0.5.5", "", "mixed", "no"),
    Unit("larq", "pypi", "0.13.3", "", "tf2", "no"),
    # --- GitHub snapshots ---
    Unit("openai+baselines", "github", "openai/baselines", "ea25b9e8b234e6ee1bca43083f8f3cf974143998", "tf1", "no"),
    Unit("google-research+bert", "github", "google-research/bert",
         "eedf5716ce1268e56f0a50264a88cafad334ac61", "tf1", "no"),
    Unit("openai+gpt-2", "github", "openai/gpt-2", "9b63575ef42771a015060c964af2c3da4cf7c8ab", "tf1", "no"),
    Unit("carpedm20+DCGAN-tensorflow", "github", "carpedm20/DCGAN-tensorflow",
         "62c9a2a7f74505cad30858bf40307c93e5bd9293", "tf1", "no"),
    Unit("aymericdamien+TensorFlow-Examples", "github", "aymericdamien/TensorFlow-Examples",
         "6dcbe14649163814e72a22a999f20c5e247ce988", "mixed", "no"),
    Unit("LantaoYu+SeqGAN", "github", "LantaoYu/SeqGAN", "e2b52fb6309851b14765290e8a972ccac09f1bec", "tf1", "some"),
    Unit("hardmaru+write-rnn-tensorflow", "github", "hardmaru/write-rnn-tensorflow",
         "c9423a1adf1eaa65297e16f7a1a555ffb777d8c5", "tf1", "no"),
    Unit("openai+improved-gan", "github", "openai/improved-gan",
         "4f5d1ec5c16a7eceb206f42bfc652693601e1d5c", "tf1", "some"),
    Unit("openai+InfoGAN", "github", "openai/InfoGAN", "6e41232332672844f539c9fbf46d230f3d5b0699", "tf1", "no"),
    Unit("jazzsaxmafia+show_attend_and_tell.tensorflow", "github", "jazzsaxmafia/show_attend_and_tell.tensorflow",
         "11b393cde82b21f165363c7e91e3337914f3346d", "tf1", "some"),
    Unit("ry+tensorflow-resnet", "github", "ry/tensorflow-resnet",
         "ccb9cc8cc2cc7021c67e7df4a70f96faab9553c5", "tf1", "some"),
    Unit("nivwusquorum+tensorflow-deepq", "github", "nivwusquorum/tensorflow-deepq",
         "149e69e5340984d75df3ff1a374920d870517fb9", "tf1", "some"),
    Unit("tkipf+gcn", "github", "tkipf/gcn", "39a4089fe72ad9f055ed6fdb9746abdcfebc4d81", "tf1", "no"),
    Unit("hwalsuklee+tensorflow-generative-model-collections", "github",
         "hwalsuklee/tensorflow-generative-model-collections",
         "3abde8a9bcfe31815da50347d14641ec95096f62", "tf1", "no"),
    Unit("tensorflow+benchmarks", "github", "tensorflow/benchmarks",
         "8fb79079265933ad39bea628b777af662f5bf15d", "tf1", "no"),
    Unit("tensorflow+nmt", "github", "tensorflow/nmt", "0be864257a76c151eef20ea689755f08bc1faf4e", "tf1", "no"),
    Unit("tensorflow+examples", "github", "tensorflow/examples",
         "608f7db8c511e3dcc420afc564496e4516ceb800", "tf2", "no"),
    Unit("YunYang1994+TensorFlow2.0-Examples", "github", "YunYang1994/TensorFlow2.0-Examples",
         "299fd6689f242d0f647a96b8844e86325e9fcb46", "tf2", "no"),
    Unit("dragen1860+TensorFlow-2.x-Tutorials", "github", "dragen1860/TensorFlow-2.x-Tutorials",
         "9861a308283d17693d497fdfaab20b92c0b26d08", "tf2", "no"),
    # --- added in round 3 (issue 18: TF2 and Keras user code, notebooks included); parts by the hash ---
    Unit("tensorflow+docs", "github", "tensorflow/docs", "7c3650212740204359d4ceae481abc79345541be", "tf2", "no",
         notebooks=True),
    Unit("tensorflow+privacy", "github", "tensorflow/privacy", "03035d5d4a271ac795dab80f5bc1cef82fc3d462", "mixed",
         "no", notebooks=True),
    Unit("ageron+handson-ml3", "github", "ageron/handson-ml3", "e3f3f9e66d58cfa1d068a498433063a1d3fba9ef", "tf2", "no",
         notebooks=True),
    Unit("keras-team+keras-tuner", "github", "keras-team/keras-tuner", "417e5b5e8df924d428a3c64007f3ed47bd4c7026",
         "tf2", "no"),
    Unit("tensorflow+gan", "github", "tensorflow/gan", "bc369b7ec040f2c4f04e4daf29f60252118e72c7", "mixed", "no",
         notebooks=True),
    Unit("sayakpaul+TF-2.0-Hacks", "github", "sayakpaul/TF-2.0-Hacks", "3ec76db4a1a0a666f037863e8e2539dce15b1162",
         "tf2", "no", notebooks=True),
    Unit("tensorflow+hub", "github", "tensorflow/hub", "26c94f67716f457efaa70c63b4d1b561a08be9f1", "tf2", "no"),
    Unit("tensorflow+model-remediation", "github", "tensorflow/model-remediation",
         "98e1f9b47d6da43391a2fd2efa33e5e30e0231c9", "tf2", "no", notebooks=True),
    Unit("fchollet+deep-learning-with-python-notebooks", "github", "fchollet/deep-learning-with-python-notebooks",
         "dea84a4e12cc3bb3cb61ce952a0168bca113d315", "tf2", "no", notebooks=True),
    Unit("ageron+handson-ml2", "github", "ageron/handson-ml2", "1e2115277b50f6c584cd668fa30e3af309a5b136", "tf2", "no",
         notebooks=True),
    Unit("tensorflow+similarity", "github", "tensorflow/similarity", "dc506d63d05d012d3496041c25c1c54981d39565",
         "tf2", "no", notebooks=True),
    Unit("google+uncertainty-baselines", "github", "google/uncertainty-baselines",
         "163351d4c92340a80e572bc376ec837d8e96399d", "tf2", "no", notebooks=True),
    # --- added in round 5 (fresh held-out code for a new measurement) ---
    Unit("mesh-tensorflow", "pypi", "0.1.21", "", "tf1", "no"),
    Unit("adanet", "pypi", "0.9.0", "", "tf1", "no"),
    Unit("dennybritz+cnn-text-classification-tf", "github", "dennybritz/cnn-text-classification-tf",
         "18762b459e21d9c70e5c242f8d43fc4e6db37a0d", "tf1", "no"),
    Unit("hunkim+DeepLearningZeroToAll", "github", "hunkim/DeepLearningZeroToAll",
         "60c707e02af7bd950401faeadcc6c0e1b39b2978", "mixed", "no", notebooks=True),
    Unit("openai+glow", "github", "openai/glow", "91b2c577a5c110b2b38761fc56d81f7d87f077c1", "tf1", "no"),
    Unit("openai+pixel-cnn", "github", "openai/pixel-cnn", "bbc15688dd37934a12c2759cf2b34975e15901d9", "tf1", "no"),
    Unit("MorvanZhou+Tensorflow-Tutorial", "github", "MorvanZhou/Tensorflow-Tutorial",
         "42dc32de532d146725aeef965d87871142a542d6", "tf1", "no"),
    Unit("endernewton+tf-faster-rcnn", "github", "endernewton/tf-faster-rcnn",
         "b4da911705925ec00e8359b76a2d7260f6d1d314", "tf1", "some"),
    Unit("google+seq2seq", "github", "google/seq2seq", "7f485894d412e8d81ce0e07977831865e44309ce", "tf1", "no"),
    Unit("chiphuyen+stanford-tensorflow-tutorials", "github", "chiphuyen/stanford-tensorflow-tutorials",
         "51e53daaa2a32cfe7a1966f060b28dbbd081791c", "tf1", "some"),
    Unit("brightmart+text_classification", "github", "brightmart/text_classification",
         "091ff9910839ba5053302383af99762c0c91a992", "tf1", "no", notebooks=True),
    Unit("sherjilozair+char-rnn-tensorflow", "github", "sherjilozair/char-rnn-tensorflow",
         "4bff62d34ba6d536f052145cd3f8f79b6fa11365", "tf1", "no"),
    Unit("ageron+handson-ml", "github", "ageron/handson-ml",
         "b7051594afbb1d835f5e031af8664c4363878050", "tf1", "no", notebooks=True),
    Unit("deepmind+graph_nets", "github", "deepmind/graph_nets",
         "64771dff0d74ca8e77b1f1dcd5a7d26634356d61", "mixed", "no", notebooks=True),
    Unit("deepmind+scalable_agent", "github", "deepmind/scalable_agent",
         "6c0c8a701990fab9053fb338ede9c915c18fa2b1", "tf1", "no"),
    Unit("awjuliani+DeepRL-Agents", "github", "awjuliani/DeepRL-Agents",
         "f3c9a3ff9ee86029a72b63bbfa4dce3c56979ab3", "tf1", "no", notebooks=True),
    Unit("wiseodd+generative-models", "github", "wiseodd/generative-models",
         "b930d5fa9e2f69adfd4ea8ec759f38f6ce6da4c2", "tf1", "no"),
    Unit("deepmind+dnc", "github", "deepmind/dnc", "d3d94b3b1f1efc282481910054f82047caf37f65", "tf1", "no"),
    Unit("hiwonjoon+tf-vqvae", "github", "hiwonjoon/tf-vqvae",
         "6d69ff97dd2ca62208697cc54da06f3bd1e845bb", "tf1", "no", notebooks=True),
    Unit("kwotsin+TensorFlow-ENet", "github", "kwotsin/TensorFlow-ENet",
         "d7e555e53c8f38a5f3d54906848110f6a3e6e98a", "tf1", "some"),
    Unit("pemami4911+deep-rl", "github", "pemami4911/deep-rl", "3cc7eb13af9e4780ece8ddc8b663bde59e19c8c0", "tf1", "no"),
    Unit("zsdonghao+text-to-image", "github", "zsdonghao/text-to-image",
         "c1fbfa4349f5aa1c74c9fe17743cc0cff34f1aab", "tf1", "no"),
    Unit("jiamings+ais", "github", "jiamings/ais", "bf45e21893655f3c31c8491cdf6935249c0f175e", "tf1", "no"),
    Unit("Hvass-Labs+TensorFlow-Tutorials", "github", "Hvass-Labs/TensorFlow-Tutorials",
         "d5f33973570fe6ef9c78c8a38c7449a932c81010", "mixed", "no", notebooks=True),
    Unit("tensorflow+workshops", "github", "tensorflow/workshops",
         "fc5b415387a540b0eba7b61322f9837d81f9f899", "mixed", "no", notebooks=True),
    Unit("LynnHo+DCGAN-LSGAN-WGAN-GP-DRAGAN-Tensorflow-2", "github", "LynnHo/DCGAN-LSGAN-WGAN-GP-DRAGAN-Tensorflow-2",
         "2bf0c8b6adbc5f0b9b0abb2149fe9cf47a978976", "mixed", "some"),
    Unit("tensorflow+fold", "github", "tensorflow/fold",
         "0e7ca14832a14a5f2009d4e0424783a80e7d7a2c", "tf1", "no", notebooks=True),
    # --- added in round 6 (more fresh held-out code: TF1 tutorials and research) ---
    Unit("nfmcclure+tensorflow_cookbook", "github", "nfmcclure/tensorflow_cookbook",
         "d998edfe7df11177df2ea17814be7bd6193788c9", "tf1", "no", notebooks=True),
    Unit("sjchoi86+Tensorflow-101", "github", "sjchoi86/Tensorflow-101",
         "582cc1d946f0ecbce078e493b8ccb1d7b40684df", "tf1", "some", notebooks=True),
    Unit("MorvanZhou+tutorials", "github", "MorvanZhou/tutorials",
         "c36c8995951bc09890efd329635c2b74bd532610", "tf1", "no", notebooks=True),
    Unit("dennybritz+reinforcement-learning", "github", "dennybritz/reinforcement-learning",
         "2b832284894a65eccdd82353cc446f68d100676e", "tf1", "no", notebooks=True),
    Unit("carpedm20+BEGAN-tensorflow", "github", "carpedm20/BEGAN-tensorflow",
         "722b3f1a2ff9fd79b8508d3fd29b2a15e4e8ae36", "tf1", "no"),
    Unit("carpedm20+deep-rl-tensorflow", "github", "carpedm20/deep-rl-tensorflow",
         "95d3e2dde77d4a7a393ec418fe3537094d08c2ba", "tf1", "no"),
    Unit("carpedm20+pixel-rnn-tensorflow", "github", "carpedm20/pixel-rnn-tensorflow",
         "1d98c28c62ed9c9584a342b63e4612dd9e5ae688", "tf1", "some"),
    Unit("carpedm20+simulated-unsupervised-tensorflow", "github", "carpedm20/simulated-unsupervised-tensorflow",
         "eafa49f0a98641c99b66c8eafbac48314363ae0f", "tf1", "no"),
    Unit("devsisters+DQN-tensorflow", "github", "devsisters/DQN-tensorflow",
         "c7b1f1051dfa152530322445fc8febb9a2ea078b", "tf1", "no"),
    Unit("Kyubyong+tacotron", "github", "Kyubyong/tacotron", "379bb7f54c3359ffe97d1f09a773bc6da49eba6f", "tf1", "no"),
    Unit("suriyadeepan+practical_seq2seq", "github", "suriyadeepan/practical_seq2seq",
         "eb2e44b77b0b4af52c8d1b6d41e19919873a7f4f", "tf1", "no", notebooks=True),
    Unit("igul222+improved_wgan_training", "github", "igul222/improved_wgan_training",
         "fa66c574a54c4916d27c55441d33753dcc78f6bc", "tf1", "some"),
    Unit("asrivat1+DeepLearningVideoGames", "github", "asrivat1/DeepLearningVideoGames",
         "2377a8e26314346323587bd8151eeb8aba7fd3e4", "tf1", "some"),
    Unit("ahangchen+GDLnotes", "github", "ahangchen/GDLnotes", "a002ded2ee8a800e1ed0cf31750cdd5ba03beed9", "tf1",
         "some"),
    Unit("guillaumegenthial+sequence_tagging", "github", "guillaumegenthial/sequence_tagging",
         "5cb9890e7c52e35a1239378da43a8de7be508003", "tf1", "no"),
    Unit("openai+maddpg", "github", "openai/maddpg", "3ceefa0ada3ff31d633dd0bde8ff95213ce99be3", "tf1", "no"),
    Unit("vanhuyz+CycleGAN-TensorFlow", "github", "vanhuyz/CycleGAN-TensorFlow",
         "befe2f57032ee6c25d0dbd1f497f5b5432375da5", "tf1", "no"),
    Unit("hardikbansal+CycleGAN", "github", "hardikbansal/CycleGAN",
         "a0d07f69ae4d7d69ad9fa76546cc78e986026f4e", "tf1", "no", notebooks=True),
    Unit("openai+evolution-strategies-starter", "github", "openai/evolution-strategies-starter",
         "951f19986921135739633fb23e55b2075f66c2e6", "tf1", "no"),
    Unit("IsaacChanghau+neural_sequence_labeling", "github", "IsaacChanghau/neural_sequence_labeling",
         "10b5585235d5500b78bff81d4f8f3c818cd3af00", "tf1", "no"),
    # --- added in round 7 (fresh held-out code for the final rules) ---
    Unit("udacity+deep-learning", "github", "udacity/deep-learning",
         "6d8bdf6596a1243cf95981ccc815e4ab49bf5cc8", "tf1", "no", notebooks=True),
    Unit("Hezi-Resheff+Oreilly-Learning-TensorFlow", "github", "Hezi-Resheff/Oreilly-Learning-TensorFlow",
         "adda1fe400aa2b056780797b801aaf33a1dbeee0", "tf1", "no", notebooks=True),
    Unit("jorditorresBCN+LibroTensorFlow", "github", "jorditorresBCN/LibroTensorFlow",
         "202f5976848b5cbffc2af1355d839044976826a7", "tf1", "some"),
    Unit("ericjang+draw", "github", "ericjang/draw", "56bb9404bc3d01da1e1ed2930660221f8c39f7b0", "tf1", "no"),
    Unit("ericjang+gumbel-softmax", "github", "ericjang/gumbel-softmax",
         "4deb8bd4788432c86a0587b97a2d3e16f9e9b6a1", "tf1", "no", notebooks=True),
    Unit("ikostrikov+TensorFlow-VAE-GAN-DRAW", "github", "ikostrikov/TensorFlow-VAE-GAN-DRAW",
         "380b30c2f8577ea29681d3734b311e6562835019", "tf1", "no"),
    Unit("jonbruner+generative-adversarial-networks", "github", "jonbruner/generative-adversarial-networks",
         "2e792d92b823f5a2c9c8095420869a539aa0819c", "tf1", "no", notebooks=True),
    Unit("jonbruner+ezgan", "github", "jonbruner/ezgan",
         "b6028f7e1389e578e34a33af7dbc0fd141dcc9fb", "tf1", "no", notebooks=True),
    Unit("shekkizh+FCN.tensorflow", "github", "shekkizh/FCN.tensorflow",
         "691effb86f41ceef614859447f754f4e5f13c7d1", "tf1", "no", notebooks=True),
    Unit("MarvinTeichmann+tensorflow-fcn", "github", "MarvinTeichmann/tensorflow-fcn",
         "83a828382f7eaeda584357a56094c78d9fa13013", "tf1", "no"),
    Unit("YixuanLi+densenet-tensorflow", "github", "YixuanLi/densenet-tensorflow",
         "ea993afdb4db099c760858fcce18a6133d02ebda", "tf1", "no"),
    Unit("carpedm20+variational-text-tensorflow", "github", "carpedm20/variational-text-tensorflow",
         "7484a5236865fc07602cc60d4e940430e349caae", "tf1", "no"),
    Unit("carpedm20+MemN2N-tensorflow", "github", "carpedm20/MemN2N-tensorflow",
         "f8f4da4ca1b3a4afa764748a6907e79ab2be1ffd", "tf1", "no"),
    Unit("llSourcell+tensorflow_chatbot", "github", "llSourcell/tensorflow_chatbot",
         "0ab31017249fe5ef32e0b9027bb5b3196bd47a60", "tf1", "no"),
    Unit("SullyChen+Autopilot-TensorFlow", "github", "SullyChen/Autopilot-TensorFlow",
         "33b9e5f91a1c25fbe5cf5644b01f4d9d9a48193e", "tf1", "no"),
    Unit("cysmith+neural-style-tf", "github", "cysmith/neural-style-tf",
         "a2c374f9ee2938f0022e1e0b720f4eb28cf7d0a8", "tf1", "no"),
    Unit("hzy46+fast-neural-style-tensorflow", "github", "hzy46/fast-neural-style-tensorflow",
         "eeaa47d359e5c589a4cc6ccbf8c0450ccc657d2d", "tf1", "no"),
    Unit("david-gpu+srez", "github", "david-gpu/srez", "d65a2aabdb04122be95e61c8aa420036cd6336d6", "tf1", "no"),
    Unit("keithito+tacotron", "github", "keithito/tacotron", "d26c763342518d4e432e9c4036a1aff3b4fdaa1e", "tf1", "no"),
    Unit("bamos+dcgan-completion.tensorflow", "github", "bamos/dcgan-completion.tensorflow",
         "6b0a06c300e65f209b0283ab7c076a40c42e40bb", "tf1", "no"),
    Unit("dennybritz+chatbot-retrieval", "github", "dennybritz/chatbot-retrieval",
         "aac42717f156665e3b8341f20514254733ad3eb4", "tf1", "no", notebooks=True),
    Unit("dennybritz+tf-rnn", "github", "dennybritz/tf-rnn",
         "3d521eefb5f0938c68585fb823490dc8db6eee98", "tf1", "no", notebooks=True),
    Unit("jiegzhan+multi-class-text-classification-cnn-rnn", "github",
         "jiegzhan/multi-class-text-classification-cnn-rnn", "5db803b7c156655ead270cb9788148dc8c7f6afd", "tf1", "no"),
    Unit("gaussic+text-classification-cnn-rnn", "github", "gaussic/text-classification-cnn-rnn",
         "90dd55cccacac663e87445ed356bf59307864168", "tf1", "no"),
    Unit("roomylee+cnn-relation-extraction", "github", "roomylee/cnn-relation-extraction",
         "88110201473f18d0d4eb36108b159c0c4374591b", "tf1", "no"),
    Unit("Rayhane-mamah+Tacotron-2", "github", "Rayhane-mamah/Tacotron-2",
         "ab5cb08a931fc842d3892ebeb27c8b8734ddd4b8", "tf1", "no", notebooks=True),
    # --- added in round 8 (fresh held-out code for the final rules, after round 7) ---
    Unit("taki0112+Densenet-Tensorflow", "github", "taki0112/Densenet-Tensorflow",
         "dd2db93c529455beb36edf5c40bc5e236b7b1a79", "tf1", "no"),
    Unit("taki0112+ResNet-Tensorflow", "github", "taki0112/ResNet-Tensorflow",
         "f395de3a53ddd8bb53828c79bd3c17e77d59858d", "tf1", "no"),
    Unit("taki0112+SENet-Tensorflow", "github", "taki0112/SENet-Tensorflow",
         "41b12c4b1db9d71bf03a3dfb7b2d23cfcf6516ca", "tf1", "no"),
    Unit("taki0112+UGATIT", "github", "taki0112/UGATIT", "d508e8f5188e47000d79d8aecada0cc9119e0d56", "tf1", "no"),
    Unit("taki0112+StarGAN-Tensorflow", "github", "taki0112/StarGAN-Tensorflow",
         "277bfc3323461ad674dbffd067065d442787a542", "tf1", "no"),
    Unit("tkarras+progressive_growing_of_gans", "github", "tkarras/progressive_growing_of_gans",
         "2504c3f3cb98ca58751610ad61fa1097313152bd", "tf1", "no"),
    Unit("NVlabs+stylegan2", "github", "NVlabs/stylegan2", "bf0fe0baba9fc7039eae0cac575c1778be1ce3e3", "tf1", "no"),
    Unit("znxlwm+tensorflow-MNIST-GAN-DCGAN", "github", "znxlwm/tensorflow-MNIST-GAN-DCGAN",
         "967510386ae0dff82137226b67da53bbf7c8e3d7", "tf1", "no"),
    Unit("andrewliao11+gail-tf", "github", "andrewliao11/gail-tf",
         "ad92f41c26c34e8fabc536664fb11b44f25956cf", "tf1", "no"),
    Unit("YadiraF+PRNet", "github", "YadiraF/PRNet", "fc12fe5e1f1462bdea52409b213d0cf1c8cf6c5b", "tf1", "no"),
    Unit("gliese581gg+YOLO_tensorflow", "github", "gliese581gg/YOLO_tensorflow",
         "fd83f13b5f8f1a7b1eb7c38b143ed6da4922834a", "tf1", "some"),
    Unit("tensorflow+tpu", "github", "tensorflow/tpu",
         "7dc921f846c9e4071f3884b768a7ddf521272a49", "tf1", "no", notebooks=True),
    Unit("MrGemy95+Tensorflow-Project-Template", "github", "MrGemy95/Tensorflow-Project-Template",
         "a7e3ce2deb83095399ce48de40f7a5ceb073fe47", "tf1", "no"),
    Unit("DrSleep+tensorflow-deeplab-resnet", "github", "DrSleep/tensorflow-deeplab-resnet",
         "066023c033624e6c8154340e06e8fbad4f702bdf", "tf1", "no"),
    Unit("sthalles+deeplab_v3", "github", "sthalles/deeplab_v3",
         "c74c0f0d1800a05dd5d69fc0ea6c5280fddf3f17", "tf1", "no", notebooks=True),
    Unit("rishizek+tensorflow-deeplab-v3", "github", "rishizek/tensorflow-deeplab-v3",
         "a5d7ff2a14ebafb8a9b783271e4add82488528d3", "tf1", "no"),
    Unit("warmspringwinds+tf-image-segmentation", "github", "warmspringwinds/tf-image-segmentation",
         "dd02343d8e0df9b4aa9a9d217999bef8b32903bb", "tf1", "no", notebooks=True),
    Unit("hiwonjoon+tf-a3c-gpu", "github", "hiwonjoon/tf-a3c-gpu",
         "62f6e5819f0283708c041a6a6dbdd72ba7158c30", "tf1", "some"),
    Unit("pkmital+CADL", "github", "pkmital/CADL",
         "41e222d359f7a37b0b81c4216d011bf1fd1c42fb", "tf1", "no", notebooks=True),
    Unit("Vict0rSch+deep_learning", "github", "Vict0rSch/deep_learning",
         "d85a40b3914d0849496a8a4884c48d3d98ca3b0f", "tf1", "some"),
    Unit("tdeboissiere+DeepLearningImplementations", "github", "tdeboissiere/DeepLearningImplementations",
         "5c4094880fc6992cca2d6e336463b2525026f6e2", "tf1", "some"),
    # --- added in round 9 (fresh held-out TF1 tutorials and course material for the final rules) ---
    Unit("yongyehuang+Tensorflow-Tutorial", "github", "yongyehuang/Tensorflow-Tutorial",
         "88b5cdbdf402a8ae7f65a540e5f81f3da8f45e7d", "tf1", "some", notebooks=True),
    Unit("random-forests+tensorflow-workshop", "github", "random-forests/tensorflow-workshop",
         "31c7ca9f9248d00da37a13ded55eada4c493c463", "tf1", "some", notebooks=True),
    Unit("CreatCodeBuild+TensorFlow-and-DeepLearning-Tutorial", "github",
         "CreatCodeBuild/TensorFlow-and-DeepLearning-Tutorial",
         "b418e9dc381a908b9cb7a3038825b6eb276b98cd", "tf1", "no", notebooks=True),
    Unit("astorfi+TensorFlow-World", "github", "astorfi/TensorFlow-World",
         "70d92f6cbee2d8ad911b84d370dffc1bf90bfa6b", "tf1", "no", notebooks=True),
    Unit("DeepLearningDTU+02456-deep-learning", "github", "DeepLearningDTU/02456-deep-learning",
         "6a8005c31799b5ef721d649d6009fd622304c6e0", "tf1", "some", notebooks=True),
    Unit("rasbt+python-machine-learning-book-2nd-edition", "github", "rasbt/python-machine-learning-book-2nd-edition",
         "1b01e733d15a1808ebdb0e07e46dbb9cb1634323", "tf1", "no", notebooks=True),
    Unit("rasbt+deeplearning-models", "github", "rasbt/deeplearning-models",
         "18e046926551378cd691fd871dda0f21dcd272ab", "tf1", "no", notebooks=True),
    Unit("sjchoi86+advanced-tensorflow", "github", "sjchoi86/advanced-tensorflow",
         "19c12c2476fd25b6531a685c1df2547b0566dbe0", "tf1", "some", notebooks=True),
    Unit("golbin+TensorFlow-ML-Exercises", "github", "golbin/TensorFlow-ML-Exercises",
         "b1be51212aa2ee805ffdcbc7e7c12400325bd03d", "tf1", "some"),
    Unit("conan7882+CNN-Visualization", "github", "conan7882/CNN-Visualization",
         "e08650cc126a3a489f7d633dc18bf3f0009792b1", "tf1", "no"),
    Unit("wookayin+tensorflow-talk-debugging", "github", "wookayin/tensorflow-talk-debugging",
         "680ea79cd741a925e876d85c66bd14b8acff0d0c", "tf1", "some"),
    Unit("hwalsuklee+tensorflow-mnist-MLP-batch_normalization-weight_initializers", "github",
         "hwalsuklee/tensorflow-mnist-MLP-batch_normalization-weight_initializers",
         "85d4783d7d1c0005a7e7cfbdef4bb8e1dd6853f9", "tf1", "no"),
    # --- added in round 10 (fresh held-out TF2 and Keras code for the TF2-pitfall rules) ---
    Unit("hunglc007+tensorflow-yolov4-tflite", "github", "hunglc007/tensorflow-yolov4-tflite",
         "9f16748aa3f45ff240608da4bd9b1216a29127f5", "tf2", "no"),
    Unit("emla2805+vision-transformer", "github", "emla2805/vision-transformer",
         "9e6e7823e688edd9e2ef8a62c0ec88f775403033", "tf2", "no"),
    Unit("sayakpaul+Adaptive-Gradient-Clipping", "github", "sayakpaul/Adaptive-Gradient-Clipping",
         "65f4ba6a8821e8d35558718a5e6a803931f8db33", "tf2", "no", notebooks=True),
    Unit("pythonlessons+TensorFlow-2.x-YOLOv3", "github", "pythonlessons/TensorFlow-2.x-YOLOv3",
         "9f29d73ee24cd5db4ead280f95ff06f66d538fc2", "tf2", "no", notebooks=True),
    Unit("pythonlessons+Reinforcement_Learning", "github", "pythonlessons/Reinforcement_Learning",
         "c9717f523fb9bd4bb8ccb5b34bd6ee6c76ea21b6", "tf2", "no"),
    Unit("inoryy+reaver", "github", "inoryy/reaver", "d7bd79781b1567223a37a62832d788cdaeaf824b", "tf1", "no"),
    Unit("deepmind+sonnet", "github", "deepmind/sonnet",
         "5a465696383f967d5bffb6599347d9e6c15cef4b", "tf2", "no", notebooks=True),
    Unit("philipperemy+keras-tcn", "github", "philipperemy/keras-tcn",
         "7576256b8b2a138b88ae2483b8616681686e424f", "tf2", "no", notebooks=True),
    Unit("tensorflow+recommenders-addons", "github", "tensorflow/recommenders-addons",
         "b3bc3d4691a9421dbe837ee9708c504217fdc8f9", "mixed", "no", notebooks=True),
    Unit("tensorflow+lattice", "github", "tensorflow/lattice",
         "f52258331345031d179e24b8c8a93bffdd2d7597", "tf2", "no", notebooks=True),
    Unit("tensorflow+compression", "github", "tensorflow/compression",
         "dda8cb4c4364e657d13491227e886ff8014f7243", "tf2", "no", notebooks=True),
    Unit("google-research+bleurt", "github", "google-research/bleurt",
         "cebe7e6f996b40910cfaa520a63db47807e3bf5c", "mixed", "no"),
    Unit("google-research+electra", "github", "google-research/electra",
         "8a46635f32083ada044d7e9ad09604742600ee7b", "tf1", "no"),
    Unit("qubvel+segmentation_models", "github", "qubvel/segmentation_models",
         "5d24bbfb28af6134e25e2c0b79e7727f6c0491d0", "tf2", "no", notebooks=True),
    Unit("qubvel+efficientnet", "github", "qubvel/efficientnet",
         "f7f3e736c113b872caf53dae9fbbda996a8eb87d", "tf2", "no", notebooks=True),
    Unit("divamgupta+image-segmentation-keras", "github", "divamgupta/image-segmentation-keras",
         "1b2ba53ae49387c2d1abbd9a2f4a9a45eea6912f", "tf2", "no"),
    Unit("TensorSpeech+TensorFlowTTS", "github", "TensorSpeech/TensorFlowTTS",
         "136877136355c82d7ba474ceb7a8f133bd84767e", "tf2", "no", notebooks=True),
    Unit("TensorSpeech+TensorFlowASR", "github", "TensorSpeech/TensorFlowASR",
         "f092d39743d74308cb7959001c4657b98d01e7be", "tf2", "no"),
    Unit("calmisential+Basic_CNNs_TensorFlow2", "github", "calmisential/Basic_CNNs_TensorFlow2",
         "907303dc0db0548682e131cf680ae8aab4ab0ad2", "tf2", "no"),
    Unit("akanyaani+gpt-2-tensorflow2.0", "github", "akanyaani/gpt-2-tensorflow2.0",
         "ab93122396a02bfd76530ac6b414a525970bba96", "tf2", "no", notebooks=True),
    Unit("keras-team+autokeras", "github", "keras-team/autokeras",
         "6deb82792885fed128b7b95eb8aa859c027273a8", "tf2", "no", notebooks=True),
    Unit("sayakpaul+Generalized-ODIN-TF", "github", "sayakpaul/Generalized-ODIN-TF",
         "561938570cf96985c8ece40a1d547c693a00e033", "tf2", "no", notebooks=True),
    Unit("lsdefine+attention-is-all-you-need-keras", "github", "lsdefine/attention-is-all-you-need-keras",
         "c9c0277aa573227ab0a40d4d62e00fb0fd176d56", "tf2", "no"),
]
BY_NAME = {unit.name: unit for unit in UNITS}
# UNITS[:37] are the original units, UNITS[37:49] were added in round 3, UNITS[49:76] in round 5,
# UNITS[76:96] in round 6, UNITS[96:122] in round 7, UNITS[122:143] in round 8, UNITS[143:155] in
# round 9 and UNITS[155:178] in round 10; ROUND5 ... ROUND10 select a round's units for a measurement
# on them alone (heldout.py --units round5 ... round10).
ROUND5 = frozenset(unit.name for unit in UNITS[49:76])
ROUND6 = frozenset(unit.name for unit in UNITS[76:96])
ROUND7 = frozenset(unit.name for unit in UNITS[96:122])
ROUND8 = frozenset(unit.name for unit in UNITS[122:143])
ROUND9 = frozenset(unit.name for unit in UNITS[143:155])
ROUND10 = frozenset(unit.name for unit in UNITS[155:178])

# The split, fixed before any tuning (quality/CORPUS.md): units ordered by the SHA-256 of
# f"{SPLIT_SALT}:{name}", the first half (rounded down) held out.  SPLIT_SALT is the first of
# "0", "1", "2", ... for which both parts hold TF1 and TF2 units and the held-out part has at
# least 1,000 .py files.  SPLIT_BOUNDARY is the key of the first dev unit of the original 37
# (dragen1860+TensorFlow-2.x-Tutorials): a unit is held out when its key sorts below it, so a
# unit added later gets a part by the same hash without moving any existing unit.
SPLIT_SALT = "0"
SPLIT_BOUNDARY = "9dfa0137bec1c41970d359b5cb52a4d3c28898a0cdde4af9168ed77b4eb4f950"
ORIGINAL_UNIT_COUNT = 37


def split_key(name: str, salt: str = SPLIT_SALT) -> str:
    return hashlib.sha256(f"{salt}:{name}".encode()).hexdigest()


def splits(salt: str | None = None, units=None) -> dict[str, str]:
    """Unit name -> "heldout" or "dev".

    Without ``salt`` this is the recorded split (keys below SPLIT_BOUNDARY are held out); with a
    salt it is the rule itself (lowest half of ``units`` held out), as used to choose the salt.
    """
    units = UNITS if units is None else units
    if salt is None:
        return {u.name: ("heldout" if split_key(u.name) < SPLIT_BOUNDARY else "dev") for u in units}
    ordered = sorted(units, key=lambda unit: split_key(unit.name, salt))
    half = len(ordered) // 2
    return {unit.name: ("heldout" if i < half else "dev") for i, unit in enumerate(ordered)}


def split_problems(root: Path, github_dir: Path | None, salt: str | None = None) -> list[str]:
    """What the split violates (empty when it is valid): the recorded one, or the rule with ``salt``."""
    assigned = splits(salt)
    problems = []
    original = UNITS[:ORIGINAL_UNIT_COUNT]
    if splits(SPLIT_SALT, original) != splits(None, original):
        problems.append("SPLIT_BOUNDARY does not reproduce the rule on the original units")
    for part in ("heldout", "dev"):
        eras = {u.era for u in UNITS if assigned[u.name] == part}
        for era in ("tf1", "tf2"):
            if era not in eras:
                problems.append(f"{part} has no {era} unit")
    heldout_files = sum(1 for name, _ in python_files(root, github_dir) if assigned[name] == "heldout")
    if heldout_files < 1000:
        problems.append(f"heldout has {heldout_files} .py files (< 1000)")
    return problems


def unit_dir(unit: Unit, root: Path, github_dir: Path | None = None) -> Path:
    if unit.source == "github":
        return (github_dir or root) / unit.name
    return root / unit.name


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def fetch(root: Path = DEFAULT_ROOT, names=None) -> Path:
    """Make sure every PyPI unit's sources are extracted under ``root``; return it."""
    root.mkdir(parents=True, exist_ok=True)
    downloads = root / "_downloads"
    for unit in UNITS:
        if unit.source != "pypi" or (names and unit.name not in names):
            continue
        target = unit_dir(unit, root)
        if (target / ".complete").exists():
            continue
        binary = ["--only-binary", ":all:"] if unit.archive == "wheel" else ["--no-binary", ":all:"]
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", *binary,
                        "--dest", str(downloads), f"{unit.name}=={unit.version}"], check=True)
        prefix = f"{_normalized(unit.name)}-{unit.version}"
        archive = next(a for a in downloads.iterdir()
                       if _normalized(a.name).startswith(_normalized(prefix))
                       and a.name.endswith((".whl", ".tar.gz", ".zip")))
        if archive.name.endswith(".whl") or archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as zipped:
                members = {m: zipped.read(m) for m in zipped.namelist() if m.endswith(".py")}
        else:
            with tarfile.open(archive) as tarred:
                members = {m.name: tarred.extractfile(m).read() for m in tarred.getmembers()
                           if m.isfile() and m.name.endswith(".py")}
        for member, data in members.items():
            relative = member.split("/", 1)[1] if unit.archive == "sdist" else member
            _write(target / relative, data)
        (target / ".complete").touch()
    return root


def _write(path: Path, data: bytes) -> None:
    if ".." in path.parts:
        raise ValueError(f"unsafe path in archive: {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def import_git(name: str, git_dir: Path, github_dir: Path) -> Path:
    """Extract the .py files of a GitHub unit at its recorded commit from a local git directory."""
    unit = BY_NAME[name]
    if unit.source != "github":
        raise SystemExit(f"{name} is not a GitHub unit")
    git = ["git", f"--git-dir={git_dir}"]
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", unit.commit], check=True,
                             capture_output=True).stdout.decode()
    blobs = []  # (object id, path) of the .py files; other (possibly absent) objects are never read
    for entry in filter(None, listing.split("\0")):
        info, path = entry.split("\t", 1)
        _, kind, object_id = info.split()
        if kind == "blob" and (path.endswith(".py") or unit.notebooks and path.endswith(".ipynb")):
            blobs.append((object_id, path))
    batch = subprocess.run([*git, "cat-file", "--batch"], check=True, capture_output=True,
                           input="".join(f"{object_id}\n" for object_id, _ in blobs).encode()).stdout
    target = unit_dir(unit, github_dir, github_dir)
    position = 0
    for object_id, path in blobs:
        header_end = batch.index(b"\n", position)
        header = batch[position:header_end].split()
        if header[-1] == b"missing":  # a snapshot may leave its largest files out
            print(f"{name}: {path} is absent from {git_dir}; skipped", file=sys.stderr)
            position = header_end + 1
            continue
        size = int(header[2])
        data = batch[header_end + 1:header_end + 1 + size]
        if path.endswith(".ipynb"):
            path, data = path + ".py", _notebook_code(data)
        if data is not None:
            _write(target / path, data)
        position = header_end + 1 + size + 1
    (target / ".commit").write_text(unit.commit + "\n")
    (target / ".complete").touch()
    return target


def _notebook_code(data: bytes) -> bytes | None:
    """The module the linter sees for a notebook (its code cells, magics masked), or None."""
    from tflint_effective.frontends.documents import Notebook, NotebookError

    try:
        return Notebook(data.decode("utf-8")).source.encode("utf-8")
    except (NotebookError, UnicodeDecodeError):
        return None


def python_files(root: Path = DEFAULT_ROOT, github_dir: Path | None = None, split: str | None = None,
                 names=None):
    """The corpus .py files, sorted, as (unit name, path); optionally of one split only."""
    assigned = splits()
    for unit in UNITS:
        if (split and assigned[unit.name] != split) or (names and unit.name not in names):
            continue
        directory = unit_dir(unit, root, github_dir)
        if not (directory / ".complete").exists():
            raise SystemExit(f"unit {unit.name} missing or incomplete in {directory}"
                             + (": run `fetch`" if unit.source == "pypi" else
                                f": extract {unit.version} at {unit.commit} with `import-git`"))
        for path in sorted(directory.rglob("*.py")):
            yield unit.name, path


_TF = re.compile(rb"\btensorflow\b|\bimport\s+tf\b")


def mentions_tensorflow(path: Path) -> bool:
    return bool(_TF.search(path.read_bytes()))


def table(root: Path, github_dir: Path | None):
    """One row per unit, the columns of quality/corpus.csv."""
    assigned = splits()
    for unit in UNITS:
        files = [path for _, path in python_files(root, github_dir, names=[unit.name])]
        yield {
            "name": unit.name, "source": unit.source, "version_or_repository": unit.version,
            "commit": unit.commit, "era": unit.era, "python2": unit.python2,
            "files": len(files), "tf_files": sum(mentions_tensorflow(p) for p in files),
            "split": assigned[unit.name],
        }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--github-dir", type=Path, default=None,
                        help="directory holding the GitHub units (default: --root)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("fetch", help="download and extract the PyPI units")
    importer = commands.add_parser("import-git", help="extract a GitHub unit from a local git directory")
    importer.add_argument("name", choices=[u.name for u in UNITS if u.source == "github"])
    importer.add_argument("git_dir", type=Path)
    lister = commands.add_parser("list", help="list the corpus files, one path a line")
    lister.add_argument("--split", choices=["heldout", "dev"])
    lister.add_argument("--tensorflow-only", action="store_true",
                        help="only files that mention tensorflow")
    commands.add_parser("table", help="print the unit table as CSV")
    commands.add_parser("check", help="report missing units and verify the split")
    args = parser.parse_args(argv)
    github_dir = args.github_dir or args.root
    if args.command == "fetch":
        print(fetch(args.root))
    elif args.command == "import-git":
        print(import_git(args.name, args.git_dir, github_dir))
    elif args.command == "list":
        for _, path in python_files(args.root, github_dir, args.split):
            if not args.tensorflow_only or mentions_tensorflow(path):
                print(path)
    elif args.command == "table":
        rows = list(table(args.root, github_dir))
        writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    elif args.command == "check":
        missing = [u.name for u in UNITS if not (unit_dir(u, args.root, github_dir) / ".complete").exists()]
        for name in missing:
            print(f"missing: {name}")
        if missing:
            return 1
        problems = split_problems(args.root, github_dir)
        for problem in problems:
            print(f"split: {problem}")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
